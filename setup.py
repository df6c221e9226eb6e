"""The compiled parts: the logging filter's common case (hygiene/masking/_fastpath.c) and two
dense masking rules (hygiene/masking/_dense.c).

Optional: where no C compiler is there, the build goes on without them and their Python twins
run (same answers: fastpath.py's functions, about 7% more of a logging call's cost, and
dense.py's patterns, `hygiene mask` at about half its speed on huge lines of keys).
Everything else about the package is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "hygiene.masking._fastpath",
            sources=["hygiene/masking/_fastpath.c"],
            optional=True,
        ),
        Extension(
            "hygiene.masking._dense",
            sources=["hygiene/masking/_dense.c"],
            optional=True,
        ),
    ]
)
