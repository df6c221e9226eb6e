"""The compiled parts: the logging filter's common case (hygiene/masking/_fastpath.c) and the
dense key rule (hygiene/masking/_dense.c).

Optional: where no C compiler is there, the build goes on without it and the pure-Python twin
in hygiene/masking/fastpath.py and dense.py's patterns run (same answers, about 7% more of a logging call's cost).
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
