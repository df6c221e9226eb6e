"""Configuration from the environment: https unless loopback, credentials never from argv."""

from __future__ import annotations

import pytest

from hygiene.api.config import load_config
from hygiene.errors import UsageError

CREDS = {"AIC_EMAIL": "a@example.test", "AIC_PASSWORD": "pw-from-env"}


@pytest.mark.parametrize(
    "url",
    [
        "https://pam.example.com",
        "http://127.0.0.1:8080",
        "http://localhost:1/",
        "http://[::1]:9",
        "http://127.9.9.9",
    ],
)
def test_allowed_addresses(url: str) -> None:
    config = load_config({"AIC_BASE_URL": url, **CREDS})
    assert config.base_url == url.rstrip("/")


@pytest.mark.parametrize(
    "url",
    [
        "http://pam.example.com",
        "http://10.0.0.1",
        "ftp://x",
        "pam.example.com",
        "https://user:pw@pam.example.com",
    ],
)
def test_refused_addresses(url: str) -> None:
    with pytest.raises(UsageError):
        load_config({"AIC_BASE_URL": url, **CREDS})


def test_plain_http_elsewhere_only_when_allowed() -> None:
    env = {"AIC_BASE_URL": "http://pam.internal", "AIC_ALLOW_HTTP": "1", **CREDS}
    assert load_config(env).base_url == "http://pam.internal"


def test_missing_base_url_or_email() -> None:
    with pytest.raises(UsageError, match="AIC_BASE_URL"):
        load_config(CREDS)
    with pytest.raises(UsageError, match="AIC_EMAIL"):
        load_config({"AIC_BASE_URL": "https://x.test"})


def test_password_prompted_only_with_a_terminal() -> None:
    env = {"AIC_BASE_URL": "https://x.test", "AIC_EMAIL": "a@example.test"}
    asked: list[str] = []

    def prompt(question: str) -> str:
        asked.append(question)
        return "typed-password"

    assert load_config(env, prompt=prompt).password == "typed-password"
    assert asked == ["Password for a@example.test: "]
    with pytest.raises(UsageError, match="AIC_PASSWORD"):
        load_config(env, prompt=None)


def test_token_replaces_login_and_secrets_stay_out_of_repr() -> None:
    config = load_config(
        {
            "AIC_BASE_URL": "https://x.test",
            "AIC_TOKEN": "tok-value-123",
            "AIC_ORG_ID": "org_b",
            **CREDS,
        }
    )
    assert (config.token, config.email, config.org_id) == ("tok-value-123", None, "org_b")
    full = load_config({"AIC_BASE_URL": "https://x.test", **CREDS})
    assert "pw-from-env" not in repr(full)
    assert "tok-value-123" not in repr(config)
