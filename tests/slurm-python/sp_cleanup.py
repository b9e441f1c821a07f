# SPDX-License-Identifier: GPL-2.0-or-later
"""pytest plugin of test_slurm_python.sh (loaded with -p sp_cleanup).

After each test module of Slurm's Python suite, cancel the jobs the module
left and wait until none is left, as the suite itself does after each
module in its auto-config mode (conftest.py's module_teardown calls
atf.cancel_all_jobs there, and does nothing in local-config mode).  Without
this a module's leftovers hold the nodes for the next ones: sprio's test
leaves two jobs of every CPU running "sleep 600", Slurm's heterogeneous job
test a pending job that outranks later tests' jobs on stock Slurm only.
"""

import pytest


@pytest.fixture(scope="module", autouse=True)
def libra_cancel_jobs_after_module():
    yield
    import atf  # conftest.py has put testsuite/python/lib on sys.path

    if not atf.cancel_all_jobs(timeout=60, quiet=True):
        pytest.fail("test_slurm_python.sh: jobs left after the module "
                    "were not gone 60 s after scancel", pytrace=False)
