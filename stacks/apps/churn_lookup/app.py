# The local stack's app (Pulumi.local.yaml, workspace:apps): uploaded into the app's folder
# and deployed from there. It answers each request with the churn endpoint it may query
# (the app's `churn` resource, passed to it as SERVING_ENDPOINT by app.yaml).
import json
import os
from http.server import BaseHTTPRequestHandler, HTTPServer


class Lookup(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"serving_endpoint": os.environ.get("SERVING_ENDPOINT")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    port = int(os.environ.get("DATABRICKS_APP_PORT", "8000"))
    HTTPServer(("0.0.0.0", port), Lookup).serve_forever()
