/** A request body (after decompression) over max_body_bytes: answered 413. */
export class BodyTooLarge extends Error {
  constructor() {
    super('request body is larger than max_body_bytes');
  }
}
