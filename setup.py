"""The one compiled part: the logging filter's common case (hygiene/masking/_fastpath.c).

Optional: where no C compiler is there, the build goes on without it and the pure-Python twin
in hygiene/masking/fastpath.py runs (same answers, about 7% more of a logging call's cost).
Everything else about the package is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "hygiene.masking._fastpath",
            sources=["hygiene/masking/_fastpath.c"],
            optional=True,
        )
    ]
)
