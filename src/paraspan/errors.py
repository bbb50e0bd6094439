"""Errors a user can act on.

Every error raised for bad input is a :class:`ParaspanError`: it carries a short code
(like spaCy's ``E###``), where the problem is (file and line when there is one), what is
wrong and how to fix it. The CLI prints ``FILE:LINE: message — hint`` and exits non-zero,
never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Problem:
    """One thing wrong with an input, located as precisely as we can."""

    message: str
    hint: str = ""
    file: str | None = None
    line: int | None = None
    code: str = "E000"

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

    @property
    def code(self) -> str:
        return self.problem.code


class CorpusError(ParaspanError):
    """A corpus file is malformed or violates the schema."""


class FormatError(ParaspanError):
    """Unknown format, or an option that does not apply to a format."""


class ModelError(ParaspanError):
    """A model could not be resolved or loaded."""


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
