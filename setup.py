"""Install the top-level folders as subpackages of the ``trpg_arena`` namespace (see docs/architecture.md)."""

from setuptools import find_packages, setup

TOP = ("rules", "agents", "table", "envs", "experiments", "server")
packages = [f"trpg_arena.{top}" for top in TOP]
packages += [f"trpg_arena.{top}.{sub}" for top in TOP for sub in find_packages(top)]

setup(packages=packages, package_dir={f"trpg_arena.{top}": top for top in TOP})
