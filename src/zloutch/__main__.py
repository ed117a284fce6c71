"""``python -m zloutch``: the same as the ``zloutch`` command."""

from zloutch.adapters.cli import main

if __name__ == "__main__":
    main()
