"""YAML that never raises and never runs code: front matter, mkdocs.yml."""

from __future__ import annotations

from typing import Any

import yaml


class TolerantLoader(yaml.SafeLoader):
    """SafeLoader that turns unknown tags (``!!python/name:…``, ``!ENV``) into plain values."""


def _any_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)  # type: ignore[arg-type]


TolerantLoader.add_multi_constructor("", _any_tag)
TolerantLoader.add_multi_constructor("!", _any_tag)


def load_yaml(text: str) -> Any:
    """Parsed YAML, or ``None`` when it does not parse."""
    try:
        return yaml.load(text, Loader=TolerantLoader)
    except yaml.YAMLError:
        return None
