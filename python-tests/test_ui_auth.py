"""The job UI and `/metrics` (`--ui-port`) require the server's `--auth-token` when it has one
(issue 25): an `Authorization: Bearer TOKEN` header (Prometheus' `authorization` setting) or a
`?token=TOKEN` query parameter, which the page's own API calls repeat. Without the token every
path answers 401. Ember's own port (Spark's UI has its own ACLs); every mode of
``--ember-modes``."""

import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest

from conftest import RECORD, EmberServer, ember_binary, free_port

TOKEN = "ui tok/" + uuid.uuid4().hex


@pytest.fixture(scope="module")
def ui(request, ember_mode, tmp_path_factory):
    if RECORD:
        pytest.skip("Ember's own server flags")
    port = free_port()
    workdir = tmp_path_factory.mktemp("ember-ui-auth")
    server = EmberServer(
        ember_binary(request.config),
        ember_mode,
        extra_args=["--auth-token", TOKEN, "--ui-port", str(port)],
        workdir=workdir,
    )
    yield port
    server.stop()


def get(port, path, headers=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.mark.parametrize("path", ["/", "/metrics", "/api/queries", "/api/workers"])
def test_without_the_token_every_path_is_refused(ui, path):
    status, body = get(ui, path)
    assert status == 401 and "authentication required" in body
    assert get(ui, path, {"Authorization": "Bearer wrong"})[0] == 401
    assert get(ui, path + "?token=wrong")[0] == 401


@pytest.mark.parametrize("path", ["/", "/metrics", "/api/queries", "/api/workers"])
def test_the_token_in_a_header_or_the_query_lets_in(ui, path):
    status, body = get(ui, path, {"Authorization": f"Bearer {TOKEN}"})
    assert status == 200, body
    status, body = get(ui, path + "?token=" + urllib.parse.quote(TOKEN, safe=""))
    assert status == 200, body


def test_the_page_repeats_the_token_in_its_api_calls(ui):
    status, page = get(ui, "/?token=" + urllib.parse.quote(TOKEN, safe=""))
    assert status == 200
    assert 'new URLSearchParams(location.search).get("token")' in page
