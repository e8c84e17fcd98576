"""The artifact's run: what turns the text being optimized into the output the metric scores.

An engine optimizes an instruction; the metric scores outputs. Between them is
``run(artifact, input)``: here, one chat completion with the instruction as the
system message and the case's input fields as the user message. A user with a
program of their own passes any ``Task`` instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..llm import LlmReply, ModelConfig, ModelSettings, _credentials, _litellm, complete

Task = Callable[[str, dict[str, Any]], Any]
"""``task(instruction, input) -> output``: runs the artifact on one case's input."""


def render_input(input: Mapping[str, Any]) -> str:
    """The user message for one case: one ``field: value`` line per input field."""
    return "\n".join(f"{name}: {value}" for name, value in input.items())


@dataclass(frozen=True)
class ChatTask:
    """Run an instruction with a chat model: ``task(instruction, input)`` returns the reply text (at most
    ``max_tokens`` tokens of it when set)."""

    model: ModelConfig
    settings: ModelSettings = ModelSettings()
    max_tokens: int | None = None

    def __call__(self, instruction: str, input: dict[str, Any]) -> str:
        return self.reply(instruction, input).text

    def reply(self, instruction: str, input: Mapping[str, Any]) -> LlmReply:
        """The whole reply (text, tokens, cost), for callers that count what the runs cost."""
        return complete(self.settings, instruction, render_input(input), config=self.model, max_tokens=self.max_tokens)


def model_from_env(role: str, env: Mapping[str, str] | None = None) -> ModelConfig | None:
    """``SKYNET_<ROLE>_MODEL`` and ``SKYNET_<ROLE>_API_BASE`` as a model (``role``: task, reflection, metric).

    An API base without a model name means a local OpenAI-compatible server that serves one model.
    """
    env = os.environ if env is None else env
    prefix = f"SKYNET_{role.upper()}"
    model = env.get(f"{prefix}_MODEL", "").strip()
    base = env.get(f"{prefix}_API_BASE", "").strip() or None
    if not model and base:
        model = "openai/default"
    return ModelConfig(model, base) if model else None


def litellm_kwargs(config: ModelConfig) -> dict[str, Any]:
    """What litellm needs besides the model name to reach ``config``: its API base and key, as the studio sends them.

    Raises ``LlmError`` when the provider needs a key that is neither typed in nor in the environment.
    """
    kwargs: dict[str, Any] = {"api_base": config.api_base} if config.api_base else {}
    kwargs.update(_credentials(_litellm(), config))
    return kwargs
