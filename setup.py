"""The package layout that pyproject.toml cannot state: the folders ``envs/``, ``models/`` and ``train/`` at
the top of the checkout install as ``rlgames.envs``, ``rlgames.models`` and ``rlgames.train``, so that a
user's own ``models.py`` or ``train/`` beside a script never shadows them (every other setting is in
pyproject.toml)."""

from setuptools import find_packages, setup

OUTSIDE = {"rlgames.envs": "envs", "rlgames.models": "models", "rlgames.train": "train"}
"""Subpackages of rlgames whose code lives in a top-level folder of the checkout."""

packages = find_packages(include=["rlgames", "rlgames.*"])
for name, folder in OUTSIDE.items():
    packages += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir=OUTSIDE, package_data={"rlgames": ["py.typed"]})  # PEP 561: typed
