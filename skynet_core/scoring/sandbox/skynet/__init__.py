"""The `skynet` module that metric code imports: `llm`, `reward`, `observation`, `service_cost`.

Provided by Skynet Metric Studio wherever it runs a metric (contract Part B rule 12).
"""

from __future__ import annotations

from typing import Any

from ._context import LlmError, llm, observation, service_cost

__all__ = ["LlmError", "RewardSpecError", "llm", "observation", "reward", "service_cost", "validate_reward_spec"]


def reward(spec: dict[str, Any], accuracy: float, feedback: str = "") -> tuple[float, dict[str, Any]]:
    """Combine accuracy with the measured speed and cost of the current case (contract Part B rule 9).

    Returns a valid contract pair: the reward, and side information whose
    ``scores`` are the accuracy, speed and cost parts.
    """
    from ._reward import reward_pair

    measured = observation()
    return reward_pair(spec, accuracy, feedback, measured["latency_ms"], measured["cost_usd"])


def __getattr__(name: str) -> Any:
    # The reward maths loads on first use, keeping the child's start-up short.
    if name in ("RewardSpecError", "validate_reward_spec", "reward_pair"):
        from . import _reward

        return getattr(_reward, name)
    raise AttributeError(f"module 'skynet' has no attribute {name!r}")
