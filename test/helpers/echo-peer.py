"""A hostile HTTP peer, as many gateways are: every error body echoes the request headers.

Usage: echo-peer.py PORT_FILE. Listens on 127.0.0.1 (a free port, written to PORT_FILE).
Paths: /fail answers 400, /flaky 503, anything else 500 -- each body lists the request headers.
"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Echo(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_POST(self):
        length = int(self.headers.get('content-length') or 0)
        self.rfile.read(length)
        status = 400 if self.path.startswith('/fail') else 503 if self.path.startswith('/flaky') else 500
        body = ('rejected; you sent:\n' + ''.join(f'{k}: {v}\n' for k, v in self.headers.items())).encode()
        self.send_response(status)
        self.send_header('content-type', 'text/plain')
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_PUT = do_POST

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(('127.0.0.1', 0), Echo)
with open(sys.argv[1], 'w') as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
