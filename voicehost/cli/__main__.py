"""`python -m voicehost.cli`: the same as the `voicehost` command."""

import sys

from voicehost.cli import main

sys.exit(main())
