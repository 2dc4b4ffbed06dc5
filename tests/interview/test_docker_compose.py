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
    assert set(COMPOSE["volumes"]) == {"postgres-data", "redis-data"}
    assert "postgres-data:/var/lib/postgresql/data" in SERVICES["db"]["volumes"]
    assert "redis-data:/data" in SERVICES["redis"]["volumes"]


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


def test_the_workers_stay_out_of_a_plain_compose_up_until_they_have_a_command():
    for name in ("worker-gpu", "worker-cpu"):
        assert SERVICES[name]["profiles"] == ["workers"], name
    assert "profiles" not in SERVICES["web"]


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
