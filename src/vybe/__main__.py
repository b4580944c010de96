from vybe.cli.entry import run

run()
