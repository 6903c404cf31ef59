"""The Ray fixtures run real Ray Data pipelines on 127.0.0.1, and leave no process behind."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.processes import group_members
from tests.support.ray_cluster import RayCluster, ray_head

pytestmark = [pytest.mark.slow, pytest.mark.localhost]


def _double(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "double": row["id"] * 2}


def test_ray_data_map_on_the_cluster(ray_cluster: RayCluster, ray_driver: ModuleType) -> None:
    import ray.data

    rows = ray.data.from_items([{"id": i} for i in range(50)]).map(_double).take_all()

    assert sorted((r["id"], r["double"]) for r in rows) == [(i, 2 * i) for i in range(50)]
    assert ray_driver.cluster_resources()["CPU"] == ray_cluster.num_cpus
    assert {n["NodeManagerAddress"] for n in ray_driver.nodes() if n["Alive"]} == {"127.0.0.1"}


@pytest.mark.usefixtures("ray_driver")
def test_ray_data_reads_files_on_the_cluster(tmp_path: Path) -> None:
    import ray.data

    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(f"contents of {name}")

    ds = ray.data.read_binary_files(str(tmp_path), include_paths=True)
    rows = ds.map(lambda r: {"name": Path(r["path"]).name, "size": len(r["bytes"])}).take_all()

    assert sorted((r["name"], r["size"]) for r in rows) == [("a.txt", 17), ("b.txt", 17)]


def test_ray_init_in_process(ray_local: ModuleType) -> None:
    import ray.data

    total = ray.data.range(100).map_batches(lambda b: {"id": b["id"] + 1}).sum("id")

    assert total == sum(range(1, 101))
    assert ray_local.cluster_resources()["CPU"] == 1
    assert {n["NodeManagerAddress"] for n in ray_local.nodes() if n["Alive"]} == {"127.0.0.1"}


def test_head_node_stops_without_leftovers(tmp_path: Path) -> None:
    with ray_head(tmp_path, num_cpus=1) as cluster:
        assert len(group_members(cluster.pid)) >= 3  # ray start, GCS, raylet at least
    assert group_members(cluster.pid) == []
    assert not cluster.temp_dir.exists()
