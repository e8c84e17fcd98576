"""The Data page's view-models: ``preview`` (a dataset's first rows and its splits, as shown) and
``role_editor`` (the role editor's rows and the roles they give)."""
