"""A stand-in for the httpx package the seed's example imports, so the
example runs unchanged without the network: each call is answered at once
with what it was asked (the Authorization header only as a digest, since
TinyElf masks the credential itself out of results)."""
import hashlib


class Response:
    def __init__(self, body):
        self._body = body

    def raise_for_status(self):
        return None

    def json(self):
        return self._body


def _seen(url, headers, timeout):
    if timeout is None:
        raise AssertionError("the request has no timeout")
    auth = (headers or {}).get("Authorization", "")
    return {"url": url, "auth_sha256": hashlib.sha256(auth.encode()).hexdigest()}


def get(url, params=None, headers=None, timeout=None):
    seen = _seen(url, headers, timeout)
    seen["params"] = params
    return Response({"results": [seen]})


def post(url, json=None, headers=None, timeout=None):
    seen = _seen(url, headers, timeout)
    seen["json"] = json
    return Response(seen)
