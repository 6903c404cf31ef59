"""How ``--engine ray`` cuts a run into tasks (no Ray needed: the arithmetic only)."""

from __future__ import annotations

import pytest

from ragchunk.runs.ray_jobs import FILES_PER_TASK, TASKS_PER_CPU, files_per_task


@pytest.mark.parametrize(
    ("files", "cpus", "expected"),
    [
        (1, 2, 1),
        (10, 2, 1),  # 10 tasks: TASKS_PER_CPU per CPU at least, as far as the files go
        (1000, 2, FILES_PER_TASK),  # many files: the most per task
        (1000, 64, 3),  # a big cluster: smaller tasks, so that every CPU has some
        (1000, 0, FILES_PER_TASK),  # a cluster reporting no CPU yet (autoscaling)
    ],
)
def test_tasks_get_few_files_on_small_runs_and_at_most_the_cap(
    files: int, cpus: float, expected: int
) -> None:
    per_task = files_per_task(files, cpus)
    assert per_task == expected
    tasks = -(-files // per_task)
    assert tasks >= min(files, TASKS_PER_CPU * cpus)
