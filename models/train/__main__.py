from ..checks import run
from .cli import main

run(main)
