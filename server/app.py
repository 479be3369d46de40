"""The Flask application factory.

``create_app(config, service)`` registers the blueprints (pages, calibration,
JSON API, history), limits request bodies to ``[server] max_request_bytes``
and answers every error under ``/api`` as JSON. The table service lives in
``app.extensions["zilch_tower"]``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from server import api, calibration_api, history, pages, teach_api
from server.config import Config, load_config
from server.security import HostCheck, add_security_headers
from server.service import TableService

log = logging.getLogger(__name__)


def create_app(
    config: Config | None = None,
    service: TableService | None = None,
    test_config: Mapping[str, Any] | None = None,
) -> Flask:
    """The web app for one table; starts a service from ``config`` when none is given."""
    if config is None:
        config = service.config if service is not None else load_config()
    if service is None:
        service = TableService(config)
        service.start()
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = int(config["server"]["max_request_bytes"])
    app.config["ZILCH_TOWER_CONFIG"] = config
    app.json.sort_keys = False  # type: ignore[attr-defined]
    if test_config:
        app.config.update(test_config)
    app.extensions["zilch_tower"] = service
    app.register_blueprint(pages.bp)
    app.register_blueprint(calibration_api.bp)
    app.register_blueprint(teach_api.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(history.bp)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected_error)
    guard = api.PinGuard()
    # The TV shows the room's PIN back-off: publish the state when one starts.
    guard.on_backoff = lambda: service.controller.submit_nowait(service.controller.touch)
    service.document.pin_backoff = guard.backoff_s
    app.extensions["zilch_tower_pin_guard"] = guard
    hosts = HostCheck(config["server"]["hostnames"])
    app.extensions["zilch_tower_hosts"] = hosts
    app.before_request(_check_host)
    app.after_request(add_security_headers)
    return app


def _check_host() -> Response | None:
    """Refuse (421) a request whose Host header names another site (DNS rebinding)."""
    hosts: HostCheck = current_app.extensions["zilch_tower_hosts"]
    if hosts.allows(request.host):
        return None
    message = (
        f"this table does not answer to the name {request.host!r}; open it by its own "
        "address or name, or add the name to [server] hostnames"
    )
    if request.path.startswith("/api"):
        response = jsonify({"error": message})
    else:
        response = Response(message + "\n", mimetype="text/plain")
    response.status_code = 421
    return response


def _http_error(exc: HTTPException) -> Any:
    """JSON errors under /api; the usual HTML error page elsewhere."""
    if not request.path.startswith("/api"):
        return exc
    response, code = api.http_error_json(exc)
    if code == 413:
        limit = request.max_content_length
        response = jsonify({"error": f"the request body is larger than {limit} bytes"})
    return response, code


def _unexpected_error(exc: Exception) -> Any:
    """A bug, not a user's mistake: logged with its traceback, answered in one line."""
    if isinstance(exc, HTTPException):
        return _http_error(exc)
    log.exception("unexpected error on %s %s", request.method, request.path)
    if request.path.startswith("/api"):
        return jsonify({"error": "internal error; see the service log"}), 500
    return Response("Internal error; see the service log.", 500, mimetype="text/plain")
