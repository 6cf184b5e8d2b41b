"""`python -m monitor` is the same as the `rankwatch` command."""

import sys

from monitor.cli import main

if __name__ == "__main__":
    sys.exit(main())
