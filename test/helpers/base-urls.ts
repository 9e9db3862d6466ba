/**
 * The servers the tests use unless BRIDGE_TEST_*_URL says otherwise. Constants only: this module
 * reads no environment, so the workers' setup (worker-databases.ts) can import it before it points
 * those variables at a worker's databases, and databases.ts reads them afterwards.
 */
export const DEFAULT_URLS = {
  pg: 'postgres://postgres@127.0.0.1:5432/test',
  mysql: 'mysql://root@127.0.0.1:3306/test',
  mariadb: 'mariadb://root@127.0.0.1:3306/test',
};
