"""Keeping secrets out of what ideaco prints and writes: URL credentials and API keys.

`redact_url` hides a URL's user:password and secret-looking query values, for every place an
endpoint is shown (the run line, errors, logs, the lock holder's command). `Scrubber` replaces
whole occurrences of secrets in text a server sent back; a "secret" shorter than MIN_SECRET_CHARS
(a key like `1` or `true`) is not scrubbed, because replacing it would corrupt ordinary answers.
A URL's user:password travels as HTTP Basic (`Authorization: Basic base64(user:password)`), so
`url_secrets` gives that form too; `redact_headers` blanks the value of any credential header
(Authorization, api-key, ...) or `Bearer`/`Basic` token that an error body quotes, whoever's it is.
`Secrets` is a run's own (its key, its endpoints' URL credentials, the variables holding them), as
values passed to what must keep them out: an agent command's environment and output.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

HIDDEN = "***"
MIN_SECRET_CHARS = 8
_SECRET_PARAM = re.compile(r"key|token|secret|pass|auth|sig|credential", re.IGNORECASE)
# A URL anywhere in a line of text (a command line, an error message).
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
# A credential header as a server quotes it (`Authorization: Bearer x`, `"api-key": "x"`,
# `x-api-key=x`), and a bare `Bearer x` / `Basic x`: the value up to a quote, comma or space.
_HEADER_NAME = r"(?:proxy-)?authorization|x-api-key|api[-_]?key|x-goog-api-key|x-auth-token|cookie"
_CREDENTIAL_HEADER = re.compile(
    rf"""(?P<name>\b(?:{_HEADER_NAME})\b["']?\s*[:=]\s*["']?)(?:(?P<scheme>bearer|basic|token)\s+)?(?P<value>[^\s"',;<>]+)""",
    re.IGNORECASE,
)
_SCHEME_TOKEN = re.compile(r"\b(?P<scheme>bearer|basic)\s+(?P<value>[A-Za-z0-9+/=._~-]{8,})", re.IGNORECASE)
# A word of prose ("Basic authentication", "Bearer Required") is not a token.
_PROSE_WORD = re.compile(r"[A-Za-z][a-z]*")


def _split(url: str):
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return None
    return parts


def redact_url(url: str) -> str:
    """`url` with its user:password and secret query values replaced by ***."""
    parts = _split(url)
    if parts is None:
        # Not parseable: hide whatever sits between the scheme and an '@'.
        return re.sub(r"(://)[^/@\s]*@", r"\1" + HIDDEN + "@", url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = HIDDEN + "@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_PARAM.search(k) for k, _ in pairs):
            query = urlencode([(k, HIDDEN if _SECRET_PARAM.search(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_urls(text: str) -> str:
    """Every URL inside `text` redacted (see `redact_url`)."""
    return _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)


def url_secrets(url: str | None) -> list[str]:
    """The secrets a URL carries (user, password, secret query values), decoded and as written."""
    if not url:
        return []
    parts = _split(url)
    if parts is None:
        return []
    found: list[str] = []
    for value in (parts.username, parts.password):
        if value:
            found += [value, unquote(value)]
    if parts.username is not None or parts.password is not None:
        # What the HTTP client sends for them: Authorization: Basic base64(user:password).
        for user, password in {
            (parts.username or "", parts.password or ""),
            (unquote(parts.username or ""), unquote(parts.password or "")),
        }:
            found.append(basic_credentials(user, password))
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if value and _SECRET_PARAM.search(key):
            found += [value, quote(value, safe="")]
    return found


def basic_credentials(user: str, password: str) -> str:
    """The token of `Authorization: Basic <token>` for user:password."""
    return base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


def split_credentials(url: str) -> tuple[str, str | None]:
    """`url` without its user:password, and the `Authorization` value they stand for (None if none).

    Sent as a header, the credentials are not in the URL an HTTP library logs with each request.
    """
    parts = _split(url)
    if parts is None or "@" not in parts.netloc:
        return url, None
    host = parts.netloc.rsplit("@", 1)[1]
    bare = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    user, password = unquote(parts.username or ""), unquote(parts.password or "")
    return bare, "Basic " + basic_credentials(user, password)


def redact_headers(text: str) -> str:
    """`text` with the value of every credential header it quotes, and of any Bearer/Basic token, as ***."""

    def hide(match: re.Match[str]) -> str:
        scheme = match.group("scheme")
        return match.group("name") + (scheme + " " if scheme else "") + HIDDEN

    def hide_token(match: re.Match[str]) -> str:
        if _PROSE_WORD.fullmatch(match.group("value")):
            return match.group(0)
        return match.group("scheme") + " " + HIDDEN

    text = _CREDENTIAL_HEADER.sub(hide, text)
    return _SCHEME_TOKEN.sub(hide_token, text)


class Scrubber:
    """Replaces whole occurrences of the given secrets with ***; secrets too short to be one are kept."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        self.secrets = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(s) for s in self.secrets)) if self.secrets else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(HIDDEN, text)


def url_userinfo(url: str | None) -> str | None:
    """A URL's `user:password@` as written (None if it has none): what a value holding the URL holds."""
    parts = _split(url) if url else None
    if parts is None or "@" not in parts.netloc:
        return None
    return parts.netloc.rsplit("@", 1)[0] + "@"


@dataclass(frozen=True)
class Secrets:
    """A run's own secrets: the environment variables that hold them (`names`, e.g. the one
    `--api-key-env` names) and their values (the API key; each endpoint's URL credentials, as
    written, decoded, in their Basic form and as `user:password@`). Built where the model is
    resolved and passed down: an agent command sees none of them and its output is scrubbed."""

    names: frozenset[str] = frozenset()
    values: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, names: Iterable[str | None], keys: Iterable[str | None], urls: Iterable[str | None]
    ) -> Secrets:
        values: list[str] = [k for k in keys if k]
        for url in urls:
            values += url_secrets(url)
            if userinfo := url_userinfo(url):
                values.append(userinfo)
        return cls(frozenset(n.upper() for n in names if n), tuple(dict.fromkeys(values)))

    def scrubber(self) -> Scrubber:
        return Scrubber(self.values)

    def held_in(self, value: str) -> bool:
        """Whether `value` is one of the secrets or holds one (a secret too short to be told from
        ordinary text counts only when it is the whole value; a URL's `user:password@` always)."""
        return any(
            value == secret or ((len(secret) >= MIN_SECRET_CHARS or secret.endswith("@")) and secret in value)
            for secret in self.values
        )


NO_SECRETS = Secrets()  # a caller that knows none (a test, an office built without a run)
