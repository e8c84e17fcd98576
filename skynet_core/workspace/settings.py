"""The settings: models, timeout, Ray address, language; the run options and scorer they make; what a result
made now would be made from (provenance)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..llm import ModelSettings, forget_settings, load_settings, make_handler, save_settings
from ..metric.contract import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, MIN_TIMEOUT_S
from ..metric.source import MetricSource
from ..provenance import Provenance, settings_fingerprint
from ..scoring import RunOptions, Scorer, scorer_for
from ..scoring.runner import WorkerPool, default_pool
from ..store import Store
from .bounds import Bounds
from .data import Data
from .drafts import Drafts
from .values import SETTING_LANGUAGE, SETTING_RAY_ADDRESS, SETTING_TIMEOUT, DatasetInUse

# The server's environment variables that give the model defaults (read by ``ModelSettings.from_env``).
MODEL_ENV = (
    "SKYNET_METRIC_MODEL",
    "SKYNET_METRIC_API_BASE",
    "SKYNET_REFLECTION_MODEL",
    "SKYNET_REFLECTION_API_BASE",
    "SKYNET_TASK_MODEL",
    "SKYNET_TASK_API_BASE",
)


class Settings:
    """The settings of ``store``'s data directory over the server's environment (``env``: ``os.environ`` when
    ``None``); run options use ``bounds``' answer cache and the ``pool`` (the process-wide one when ``None``);
    provenance reads the draft of ``drafts`` and the dataset in use of ``data``."""

    def __init__(
        self,
        store: Store,
        bounds: Bounds,
        drafts: Drafts,
        data: Data,
        *,
        pool: WorkerPool | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.store = store
        self.bounds = bounds
        self.drafts = drafts
        self.data = data
        self._pool = pool
        self._env = env

    @property
    def pool(self) -> WorkerPool:
        """The pool of pre-started metric workers (the process-wide one unless another was given)."""
        return self._pool or default_pool()

    def models(self, keys: Mapping[str, str] | None = None) -> ModelSettings:
        """The models in effect: saved settings over the environment, with a session's ``keys``."""
        return load_settings(self.store, keys, self._env)

    def save_models(self, settings: ModelSettings) -> None:
        """Save the model settings, keys left out (they stay in the session)."""
        save_settings(self.store, settings)

    def forget_models(self) -> None:
        """Drop the saved model settings: the environment's defaults apply again."""
        forget_settings(self.store)

    def environment_defaults(self) -> list[tuple[str, str]]:
        """The server's model variables and their values ("" when not set), as ``ModelSettings.from_env`` reads them."""
        env = os.environ if self._env is None else self._env
        return [(name, env.get(name, "")) for name in MODEL_ENV]

    def timeout_s(self) -> float:
        value = self.store.get(SETTING_TIMEOUT, DEFAULT_TIMEOUT_S)
        try:
            value = float(value)
        except (TypeError, ValueError):
            return DEFAULT_TIMEOUT_S
        return value if MIN_TIMEOUT_S <= value <= MAX_TIMEOUT_S else DEFAULT_TIMEOUT_S

    def set_timeout_s(self, value: float) -> None:
        self.store.set(SETTING_TIMEOUT, float(value))

    def ray_address(self) -> str:
        """The Ray cluster every scoring job scores on (empty: this machine)."""
        value = self.store.get(SETTING_RAY_ADDRESS, "")
        return value.strip() if isinstance(value, str) else ""

    def set_ray_address(self, address: str) -> None:
        self.store.set(SETTING_RAY_ADDRESS, address.strip())

    def language(self) -> str | None:
        """The language picked in the sidebar (``None``: none was, the browser's applies)."""
        value = self.store.get(SETTING_LANGUAGE)
        return value if isinstance(value, str) and value else None

    def set_language(self, language: str) -> None:
        self.store.set(SETTING_LANGUAGE, language)

    def scorer(self, ray_address: str | None = None) -> Scorer:
        """The scorer of every scoring job: the Ray cluster's when an address is set, else this machine's."""
        return scorer_for(self.ray_address() if ray_address is None else ray_address)

    def run_options(
        self,
        keys: Mapping[str, str] | None = None,
        settings: ModelSettings | None = None,
        timeout_s: float | None = None,
    ) -> RunOptions:
        """The options every run of metric code uses now (``settings`` overrides the saved models, for a try-out):
        the metric's ``llm()`` calls answered from the answer cache while ``settings.cache`` is on."""
        settings = settings or self.models(keys)
        timeout = self.timeout_s() if timeout_s is None else timeout_s
        llm = make_handler(settings, cache=self.bounds.answer_cache() if settings.cache else None)
        return RunOptions(timeout, settings.concurrency, llm, self.pool)

    def provenance(
        self,
        metric: str | MetricSource | None = None,
        keys: Mapping[str, str] | None = None,
        in_use: DatasetInUse | None = None,
        settings: ModelSettings | None = None,
    ) -> Provenance:
        """The provenance a result made now would have (the draft's metric unless ``metric`` is given)."""
        metric = MetricSource.of(metric) if metric is not None else self.drafts.current().metric
        in_use = in_use or self.data.in_use()
        settings = settings or self.models(keys)
        effective = settings.effective()
        model, base = (effective[0].model, effective[0].api_base) if effective else ("", None)
        return Provenance(
            metric.digest,
            in_use.data.source,
            in_use.data.name,
            in_use.candidate,
            in_use.split,
            settings_fingerprint(model, base, settings.temperature),
            model,
            in_use.data.identity,
        )
