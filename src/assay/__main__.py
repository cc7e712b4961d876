"""``python -m assay``: the same program as the ``assay`` script."""

from assay.cli import script

if __name__ == "__main__":
    script()
