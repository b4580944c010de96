"""The argparse command layer: parse, call one action, print one envelope."""
