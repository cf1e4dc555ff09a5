"""``python -m benchmarks.readme [RESULTS.json] [README.md]``: rewrite README's results table from
a JSON file that ``python -m benchmarks`` wrote, without running the benchmarks again."""

import json
import sys

from .report import update_readme


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    results_path, readme_path = (list(argv) + ["benchmark-results.json", "README.md"][len(argv) :])[:2]
    with open(results_path) as file:
        update_readme(json.load(file), readme_path)
    print(f"{readme_path}: results table rewritten from {results_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
