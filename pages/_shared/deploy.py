"""This deployment's settings, read from the environment, else Streamlit's secrets, and what they allow
(:mod:`models.views.deployment` decides)."""
from __future__ import annotations

import os

import streamlit as st

from models.views.deployment import Deployment, deployment


def setting(name: str) -> str:
    """A deployment setting: the environment variable ``name``, else a root-level Streamlit secret ("" if unset)."""
    if name in os.environ:
        return os.environ[name].strip()
    try:
        return str(st.secrets.get(name, "")).strip()
    except Exception:  # no secrets file: Streamlit raises its own not-found error, which varies by version
        return ""


def now() -> Deployment:
    """What this deployment allows, as its settings say now."""
    return deployment(setting)

