"""The session-state keys that more than one place reads or writes: what a session remembers between script
runs (the snapshot, the API keys typed in, its job slots, notices), and the widget keys another file reads,
sets or resets. What each holds and who writes it.

A widget's key is its state (Streamlit keeps a widget's value under its key). A key only its own widget uses is
written where the widget is drawn, as ``<page>.<what>`` (``"history.a"``), so it cannot clash with another
page's; this module does not list those. A key built per item (a case, a run, a generation of widgets) is a
function here. Nothing in session state is shared between sessions: what every session reads is in the
workspace (``skynet_core.workspace``).
"""

from __future__ import annotations

# --- the studio (ui/studio.py, ui/widgets/) --------------------------------------------------------------
LANGUAGE = "studio.language"  # the sidebar's language picker
LLM_KEYS = "studio.llm_keys"  # API keys typed on Settings: {role: key}, this session's memory only
SNAPSHOT = "studio.snapshot"  # this script run's workspace snapshot (studio.snapshot)
RUN_NUMBER = "studio.run_number"  # this session's script runs so far, this one included (studio.run_number)
VISIT = "studio.visit"  # (the page this session's last run drew, the run its visit began with) (studio.begin_visit)
OWN_REVISION = "studio.own_revision"  # the draft revision this session wrote other than by typing


def job_slot(kind: str) -> str:
    """This session's slot for ``kind`` jobs (a newer job of the kind cancels the older one)."""
    return f"studio.jobs.{kind}"


def drawn(panel: str) -> str:
    """The id of the finished job ``panel`` last drew (ui.widgets.jobs.job_panel stops polling once it has)."""
    return f"{panel}.drawn"


# --- Author (pages/author/) ----------------------------------------------------------------------------
AUTHOR_BASE = "author.base"  # the draft revision this session's editor shows
AUTHOR_EDITOR_GEN = "author.editor_gen"  # a new generation mounts a new editor with the stored text
AUTHOR_FILE = "author.file"  # the file of the metric folder the editor shows
AUTHOR_LAST_EVENT = "author.last_event"  # the id of the editor event already applied
AUTHOR_NOTICE = "author.notice"  # (draft revision, notice): shown while the editor shows that revision
AUTHOR_FILES_ERROR = "author.files_error"
AUTHOR_NEW_FILE = "author.new_file"
AUTHOR_RENAME_TO = "author.rename_to"
AUTHOR_CHECK_KEY = "author.check_key"  # what the last check started was of (metric, data, settings, cases)
AUTHOR_EXAMPLE = "author.example"  # the example picker
AUTHOR_EXAMPLE_REV = "author.example_rev"  # the draft revision the picker was last set for
AUTHOR_EXAMPLE_FIELDS = "author.example_fields"  # (example title, the draft revision it was loaded or mapped as)
AUTHOR_TIMEOUT = "author.timeout"
AUTHOR_CANDIDATE = "author.candidate"
AUTHOR_SPLIT = "author.split"
AUTHOR_UPLOAD = "author.upload"
AUTHOR_UPLOAD_ERROR = "author.upload_error"
AUTHOR_UPLOAD_TAKEN = "author.upload_taken"  # the file id of the upload that last replaced the draft
AUTHOR_UPLOAD_DONE = "author.upload_done"  # (draft revision, kind, message): what the last upload did, beside it
AUTHOR_TRY_OPEN = "author.try_open"  # "Try one case" is open (a row was re-run)
AUTHOR_CONSISTENCY_REPEATS = "author.consistency_repeats"
AUTHOR_CONSISTENCY_CASES = "author.consistency_cases"
TRY = "author.try"  # prefix of "Try one case"'s fields: .id .split .input .output .expected .error .saved .pick
REFLECTION = "reflection"  # prefix of "Try one reflection step": .instruction .size .run .step (per page)


def editor(generation: int, file: str) -> str:
    return f"author.editor.{generation}.{file}"


# --- Data (pages/data/) --------------------------------------------------------------------------------
DATA_DRAFT = "data.draft"  # the dataset being set up (a DatasetDraft), stored only by "Use this dataset"
DATA_GEN = "data.gen"  # a new generation resets the role editor
DATA_SOURCE = "data.source"  # "example" or "file"
DATA_FLASH = "data.flash"  # (draft generation, message): "Using …", shown while that draft is open
DATA_UPLOAD = "data.upload"
DATA_UPLOAD_ERROR = "data.upload_error"
DATA_PATH = "data.path"
DATA_NEW_NAME = "data.new_name"
DATA_NEW_PATH = "data.new_path"
DATA_NEW_GEN = "data.new_gen"
DATA_NEW_ERROR = "data.new_error"
DATA_ROLES_GEN = "data.roles_gen"  # a new generation of the role editors (they start from the draft's roles)
DATA_ROLES_DIRTY = "data.roles_dirty"  # an editor needs a field name shown: draw the editors again


def data_main(generation: int) -> str:
    """The main file's candidate name, while candidate files are added (per generation of the draft)."""
    return f"data.main.{generation}"


def data_new_upload(generation: int) -> str:
    """The uploader of a new candidate file (a new generation empties it)."""
    return f"data.new_upload.{generation}"


# --- History (pages/history/) ----------------------------------------------------------------------------
HISTORY_COMPARED = "history.compared"  # (version A's digest, version B's digest) of the comparison started last

# --- Runs (pages/runs/) -----------------------------------------------------------------------------------
RUNS_BY_ID = "runs.by_id"  # compare two candidates' runs by case id

# --- Feedback review (pages/feedback/) -------------------------------------------------------------------
FEEDBACK_REVIEW = "feedback.review"  # the review of (run, thresholds, language), computed once
FEEDBACK_HEALTH = "feedback.health"  # the health findings of (run, language), computed once
FEEDBACK_THRESHOLDS = "feedback.thresholds"
FEEDBACK_THRESHOLD_GEN = "feedback.threshold_gen"  # "Reset to defaults" starts a new generation of fields
FEEDBACK_THRESHOLDS_OPEN = "feedback.thresholds_open"  # whether the Thresholds panel is open (ui.widgets.lazy)
FEEDBACK_REFLECTION_OPEN = "feedback.reflection_open"  # whether the reflection step's panel is open
FEEDBACK_CASE = "feedback.case"  # the case shown side by side
FEEDBACK_TABLE_PICK = "feedback.table_pick"
FEEDBACK_SHOW_CHOICE = "feedback.show_choice"
# "Does this feedback help?" (pages/feedback/uplift.py): the form's widgets (their values are kept in the workspace),
# the message of a start that was refused, and the arm and seed whose final instruction is shown.
UPLIFT_OPEN = "feedback.uplift.open"  # whether the feedback-value experiment's panel is open (ui.widgets.lazy)
UPLIFT_INSTRUCTION = "feedback.uplift.instruction"
UPLIFT_ROUNDS = "feedback.uplift.rounds"
UPLIFT_SEEDS = "feedback.uplift.seeds"
UPLIFT_MINIBATCH = "feedback.uplift.minibatch"
UPLIFT_BUDGET = "feedback.uplift.budget"
UPLIFT_REFUSED = "feedback.uplift.refused"
UPLIFT_ARM = "feedback.uplift.arm"
UPLIFT_SEED = "feedback.uplift.seed"


def feedback_note(run_id: int, case_id: str) -> str:
    return f"feedback.note.{run_id}.{case_id}"


# --- Reward trade-offs (pages/tradeoffs/) ------------------------------------------------------------------
TRADEOFFS_FROM_EXAMPLE = "tradeoffs.start_from_example"
TRADEOFFS_WRITE_RESULT = "tradeoffs.write_result"  # (draft revision, "ok" or "error", message) of the last write
TRADEOFFS_SEEDED_FROM = "tradeoffs.seeded_from"
TRADEOFFS_MAP = "tradeoffs.ternary"
TRADEOFFS_WEIGHTS_A = "tradeoffs.weights_a"

# --- Settings (pages/settings/) ----------------------------------------------------------------------------
SETTINGS_NOTICE = "settings.notice"
SETTINGS_RAY_ADDRESS = "settings.ray_address"
SETTINGS_EDITS = "settings.edits"  # the model form's unsaved values, kept while their fields are not drawn
SETTINGS_DRAWN = "settings.drawn"  # (run number, the form's fields) the Settings page's last run began to draw
SETTINGS_CACHE_ON = "settings.cache.enabled"  # the answer cache's switch (saved at once: settings/cache.py)
SETTINGS_CACHE_MB = "settings.cache.max_mb"  # the answer cache's bound in MB
SETTINGS_SANDBOX_CAP = "settings.sandbox_cap"  # the cap on sandboxes alive at once, across every session
SETTINGS_RATER = "settings.rater"  # the rater's name field (saved as it changes)

# --- Human scores (pages/human/) ---------------------------------------------------------------------------
HUMAN_CASE = "human.case"  # the id of the case being labelled
HUMAN_SCALE = "human.scale"  # the scale labels are given on (a ScaleKind)
HUMAN_STEP = "human.step"  # the step of the 0-to-1 scale
HUMAN_ORDER = "human.order"  # which case comes next after the unlabelled ones (a LabelOrder)
HUMAN_SEED = "human.seed"  # the random order's seed
HUMAN_ADVANCE = "human.advance"  # move to the next unlabelled case after a score is given
HUMAN_SHOW_METRIC = "human.show_metric"  # show the metric's score and feedback (hidden by default: no anchoring)
HUMAN_RATER = "human.rater"  # the rater's name field
HUMAN_FLASH = "human.flash"  # (kind, message) about the last import, shown beside the Import button
HUMAN_STORED_FLASH = "human.stored_flash"  # (kind, message) about the last deletion, beside the stored labels
HUMAN_RATER_FLASH = "human.rater_flash"  # (kind, message) about the rater's name, shown beside its field
HUMAN_UPLOAD = "human.upload"
HUMAN_UPLOAD_RATER = "human.upload_rater"  # whose scores a labels file's rows without a rater are
HUMAN_FIRST = "human.first_rater"
HUMAN_SECOND = "human.second_rater"
HUMAN_DELETE_RATER = "human.delete_rater"  # whose stored scores "Delete these labels" would delete
HUMAN_AGREEMENT = "human.agreement"  # the prefix of the agreement report's widgets on the Human scores page
ALIGN_OPEN = "human.align.open"  # whether the "Align the judge" panel is open (ui.widgets.lazy)
ALIGN_ROUNDS = "human.align.rounds"
ALIGN_BUDGET = "human.align.budget"
ALIGN_SEED = "human.align.seed"
ALIGN_RATER = "human.align.rater"  # whose labels count ("" for the mean of every rater's)
ALIGN_REFUSED = "human.align.refused"  # why the last Start was refused, shown until the next one
ALIGN_VERSION_NAME = "human.align.version_name"
ALIGN_SAVED = "human.align.saved"  # the id of the version "Save as a version" wrote, this session


def human_note(source: str, candidate: str, case_id: str) -> str:
    """The note box of one case's label (typed text stays while the person moves between cases)."""
    return f"human.note.{source}.{candidate}.{case_id}"


# --- Stress test (pages/stress/) ---------------------------------------------------------------------------
# The form's widgets (their values are kept in the workspace), the message of a start that was refused, and the
# perturbation whose examples are shown.
STRESS_CASES = "stress.cases"  # cases to sample; 0: the default (all, or fewer for a metric that may call a model)
STRESS_SEED = "stress.seed"
STRESS_BUDGET = "stress.budget"  # US dollars for the run's model calls; 0: the settings' budget per run
STRESS_SEARCH = "stress.search"  # whether the exploit search runs too
STRESS_ROUNDS = "stress.rounds"
STRESS_REFUSED = "stress.refused"
STRESS_PERTURBATION = "stress.perturbation"
