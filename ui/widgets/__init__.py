"""What several pages draw: literal text, the job panel and outcome, the per-case table, a case's trace, the
stale-result banner, "Save version", the reflection step, the comparison row, a panel drawn only while open,
the experiment panels' shared parts, and the sidebar.

Each widget takes explicit values (from the session's snapshot or a job's outcome) and keeps its widgets'
state under the ``key`` it is given.
"""
