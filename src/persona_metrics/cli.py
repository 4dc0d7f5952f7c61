"""Command line: ``persona-metrics register | list``."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from persona_metrics.integrations.registry import DEFAULT_NAMESPACE, available_metrics, modules_cache, register


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``persona-metrics`` console script."""
    parser = argparse.ArgumentParser(prog="persona-metrics", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    reg = sub.add_parser("register", help="make evaluate.load('NAME') find the bundled metrics offline")
    reg.add_argument("names", nargs="*", help=f"metrics to register (default: all of {list(available_metrics())})")
    reg.add_argument("--namespace", default=DEFAULT_NAMESPACE, help="evaluate-metric (bare names) or an org name")
    sub.add_parser("list", help="list the bundled metrics")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    if args.command == "list":
        sys.stdout.write("\n".join(available_metrics()) + "\n")
        return 0
    try:
        paths = register(args.names or None, namespace=args.namespace)
    except ValueError as err:
        parser.error(str(err))
    for path in paths:
        sys.stdout.write(f"registered {path.parent.name.split('--', 1)[1]} -> {path}\n")
    sys.stdout.write(f"modules cache: {modules_cache()}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
