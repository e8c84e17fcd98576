"""The provider keys of the tests of where keys go: one as a deployed server's environment holds it, one as a visitor
types it in on Settings for their session. Neither is a real key; every call goes to tests/fake_openai.py."""

ENV_KEY = "sk-environment-fedcba9876543210"
SESSION_KEY = "sk-session-0123456789abcdef"
