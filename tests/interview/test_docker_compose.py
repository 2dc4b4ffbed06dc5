"""docker-compose.yml and the Dockerfile, checked without a Docker engine (none runs in CI)."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def test_the_stack_has_the_database_the_broker_the_web_app_and_two_workers():
    assert set(SERVICES) == {"db", "redis", "web", "worker-gpu", "worker-cpu"}
    assert SERVICES["db"]["image"].startswith("postgres:")
    assert SERVICES["redis"]["image"].startswith("redis:")


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_service_has_a_health_check(name):
    healthcheck = SERVICES[name].get("healthcheck")
    assert healthcheck and healthcheck["test"][0] in ("CMD", "CMD-SHELL")


def test_data_lives_in_named_volumes():
    assert set(COMPOSE["volumes"]) == {"postgres-data", "redis-data", "judge-state"}
    assert "postgres-data:/var/lib/postgresql/data" in SERVICES["db"]["volumes"]
    assert "redis-data:/data" in SERVICES["redis"]["volumes"]
    for name in ("worker-gpu", "worker-cpu"):
        assert SERVICES[name]["volumes"] == ["judge-state:/var/lib/interview-judge"], name
        assert SERVICES[name]["environment"]["JUDGE_STATE_DIR"] == "/var/lib/interview-judge", name


def test_the_app_services_share_one_image_and_reach_postgresql_and_redis():
    for name in ("web", "worker-gpu", "worker-cpu"):
        service = SERVICES[name]
        assert service["build"] == "." and service["image"] == "interview-trainer:latest", name
        assert service["environment"]["DATABASE_URL"].startswith("postgres://interview:"), name
        assert service["environment"]["DATABASE_URL"].endswith("@db:5432/interview"), name
        assert service["environment"]["REDIS_URL"] == "redis://redis:6379/0", name
        assert service["environment"]["DJANGO_ENV"] == "production", name
        assert service["depends_on"] == {
            "db": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }, name


def test_production_needs_a_secret_key_from_the_operator():
    assert SERVICES["web"]["environment"]["DJANGO_SECRET_KEY"].startswith("${DJANGO_SECRET_KEY:?")


def test_the_gpu_worker_reserves_an_nvidia_gpu_and_the_cpu_worker_none():
    devices = SERVICES["worker-gpu"]["deploy"]["resources"]["reservations"]["devices"]
    assert devices == [{"driver": "nvidia", "count": 1, "capabilities": ["gpu"]}]
    assert "deploy" not in SERVICES["worker-cpu"]


@pytest.mark.parametrize("name, queue", [("worker-gpu", "gpu"), ("worker-cpu", "cpu")])
def test_each_worker_consumes_its_queue_and_a_plain_compose_up_starts_it(name, queue):
    service = SERVICES[name]
    command = service["command"]
    assert command[:4] == ["celery", "-A", "interview", "worker"], name
    assert command[command.index("--queues") + 1] == queue
    node = command[command.index("--hostname") + 1]
    assert node == f"{queue}@%h"
    # The health check pings the node by the name the command gave it.
    assert f"--destination {queue}@$$HOSTNAME" in service["healthcheck"]["test"][1]
    assert "profiles" not in service


def test_the_gpu_worker_runs_one_judge_per_reserved_gpu():
    command = SERVICES["worker-gpu"]["command"]
    reserved = SERVICES["worker-gpu"]["deploy"]["resources"]["reservations"]["devices"][0]["count"]
    assert command[command.index("--concurrency") + 1] == str(reserved)


def test_the_workers_may_build_the_sandbox_inside_their_container_and_nothing_more():
    for name in ("worker-gpu", "worker-cpu"):
        service = SERVICES[name]
        assert service["security_opt"] == ["seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"]
        assert "privileged" not in service and "cap_add" not in service, name
    for name in ("web", "db", "redis"):
        assert "security_opt" not in SERVICES[name], name


def test_the_operating_doc_documents_the_backup_command():
    operating = (ROOT / "docs" / "operating.md").read_text()
    assert "docker compose exec -T db pg_dump -U interview -d interview" in operating


def test_the_web_image_migrates_syncs_collects_static_and_serves_with_gunicorn():
    command = re.search(r"^CMD (.+)$", DOCKERFILE, flags=re.MULTILINE)[1]
    steps = [
        "manage.py migrate",
        "manage.py sync_content",
        "manage.py collectstatic",
        "exec gunicorn interview.wsgi",
    ]
    positions = [command.index(step) for step in steps]
    assert positions == sorted(positions)
    assert SERVICES["web"]["ports"] == ["${WEB_PORT:-8000}:8000"]


def test_the_image_pins_pytorch_and_installs_the_sandbox():
    assert "ARG TORCH_VERSION=2.13.0" in DOCKERFILE
    assert '"torch==${TORCH_VERSION}"' in DOCKERFILE
    assert "bubblewrap" in DOCKERFILE
    assert re.search(r"^USER app$", DOCKERFILE, flags=re.MULTILINE)


@pytest.mark.skipif(not shutil.which("docker-compose"), reason="Debian's docker-compose is not installed")
def test_docker_compose_accepts_the_file():
    environment = {**os.environ, "DJANGO_SECRET_KEY": "only-for-validation"}
    for profile in ([], ["--profile", "workers"]):
        result = subprocess.run(
            ["docker-compose", *profile, "config", "--quiet"],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr


@pytest.mark.skipif(not shutil.which("docker-compose"), reason="Debian's docker-compose is not installed")
def test_docker_compose_refuses_to_start_without_a_secret_key():
    environment = {k: v for k, v in os.environ.items() if k != "DJANGO_SECRET_KEY"}
    result = subprocess.run(
        ["docker-compose", "config", "--quiet"], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "set DJANGO_SECRET_KEY" in result.stderr
