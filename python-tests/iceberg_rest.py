"""A small Iceberg REST catalog for tests: the REST protocol's config, load, create and commit
endpoints over pyiceberg's SQL catalog (SQLite), so the catalog's own code (pyiceberg's)
checks each commit's requirements and applies its updates. Optionally requires a bearer token
and serves under a prefix its `/v1/config` announces, as real REST catalogs do.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlparse

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import CommitFailedException, NoSuchNamespaceError, NoSuchTableError, TableAlreadyExistsError
from pyiceberg.partitioning import PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import CommitTableRequest


class RestCatalog:
    def __init__(self, warehouse, token=None, prefix="ws", client=None):
        self.catalog = SqlCatalog("rest", uri=f"sqlite:///{warehouse}/rest.db", warehouse=f"file://{warehouse}")
        self.token, self.prefix = token, prefix
        # OAuth2 client credentials `(client id, secret)` its `/v1/oauth/tokens` exchanges for
        # `token` (the client credentials grant, as the REST spec's token endpoint).
        self.client = client
        self.tokens_issued = 0
        self.requests = []
        self.lock = threading.Lock()
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        rest = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def error(self, status, kind, message):
                self.reply(status, {"error": {"message": message, "type": kind, "code": status}})

            def oauth(self):
                from urllib.parse import parse_qs

                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                client_id, secret = rest.client
                if (
                    self.headers.get("Content-Type") != "application/x-www-form-urlencoded"
                    or form.get("grant_type") != "client_credentials"
                    or form.get("client_id") != client_id
                    or form.get("client_secret") != secret
                    or form.get("scope") != "catalog"
                ):
                    return self.reply(401, {"error": "invalid_client", "error_description": "Credentials for key invalid do not match"})
                rest.tokens_issued += 1
                return self.reply(
                    200,
                    {
                        "access_token": rest.token,
                        "token_type": "bearer",
                        "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
                        "expires_in": 3600,
                    },
                )

            def route(self, method):
                rest.requests.append((method, self.path))
                if rest.client and method == "POST" and urlparse(self.path).path == "/v1/oauth/tokens":
                    return self.oauth()
                if rest.token and self.headers.get("Authorization") != f"Bearer {rest.token}":
                    return self.error(401, "NotAuthorizedException", "Not authorized")
                path = urlparse(self.path).path
                if method == "GET" and path == "/v1/config":
                    return self.reply(200, {"defaults": {}, "overrides": {"prefix": rest.prefix}})
                base = f"/v1/{rest.prefix}/namespaces/"
                if not path.startswith(base):
                    return self.error(404, "NoSuchResourceException", path)
                parts = path[len(base):].split("/")
                namespace = tuple(unquote(parts[0]).split("\x1f"))
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                try:
                    with rest.lock:
                        if method == "POST" and parts[1:] == ["tables"]:
                            return self.create(namespace, body)
                        if parts[1:2] == ["tables"] and len(parts) == 3:
                            identifier = namespace + (unquote(parts[2]),)
                            if method == "GET":
                                return self.load(identifier)
                            if method == "POST":
                                return self.commit(identifier, body)
                    return self.error(404, "NoSuchResourceException", path)
                except (NoSuchTableError, NoSuchNamespaceError) as e:
                    return self.error(404, "NoSuchTableException", str(e))
                except TableAlreadyExistsError as e:
                    return self.error(409, "AlreadyExistsException", str(e))
                except CommitFailedException as e:
                    return self.error(409, "CommitFailedException", str(e))

            def loaded(self, table):
                return {
                    "metadata-location": table.metadata_location,
                    "metadata": json.loads(table.metadata.model_dump_json()),
                    "config": {},
                }

            def load(self, identifier):
                self.reply(200, self.loaded(rest.catalog.load_table(identifier)))

            def create(self, namespace, body):
                if namespace not in [tuple(n) for n in rest.catalog.list_namespaces()]:
                    rest.catalog.create_namespace(namespace)
                table = rest.catalog.create_table(
                    namespace + (body["name"],),
                    schema=Schema.model_validate(body["schema"]),
                    partition_spec=PartitionSpec.model_validate(body.get("partition-spec") or {"spec-id": 0, "fields": []}),
                    properties=body.get("properties") or {},
                )
                self.reply(200, self.loaded(table))

            def commit(self, identifier, body):
                request = CommitTableRequest.model_validate(body)
                table = rest.catalog.load_table(identifier)
                response = rest.catalog.commit_table(table, request.requirements, request.updates)
                self.reply(200, {"metadata-location": response.metadata_location, "metadata": json.loads(response.metadata.model_dump_json())})

            def do_GET(self):
                self.route("GET")

            def do_POST(self):
                self.route("POST")

        return Handler
