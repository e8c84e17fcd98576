"""Drawing helpers that pages share: each takes explicit values, keeps its widgets' state under its ``key``."""
