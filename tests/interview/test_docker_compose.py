"""docker-compose.yml and the Dockerfile, checked without a Docker engine (none runs in CI).

The checks are of what the stack needs to work, not of how the file spells it: every service the app
reaches exists and is waited for, the app logs in to the database as that service sets it up, the workers
consume exactly the queues the app routes to, data outlives its containers, and secrets come from the
operator's environment.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from interview.models import Queue

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
BOOTSTRAP = (ROOT / "scripts" / "bootstrap.sh").read_text()
# The services that run this repository's code (the web app and the judge workers).
APP_SERVICES = sorted(name for name, service in SERVICES.items() if service.get("build") == ".")
WORKER_COMMAND = ["celery", "-A", "interview", "worker"]
WORKERS = sorted(name for name in APP_SERVICES if SERVICES[name].get("command", [])[:4] == WORKER_COMMAND)
SECRET = re.compile(r"SECRET|PASSWORD|TOKEN|_KEY$")


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def consumed_queues(name: str) -> list[str]:
    return option(SERVICES[name]["command"], "--queues").split(",")


def url(name: str, variable: str):
    return urlsplit(SERVICES[name]["environment"][variable])


def named_volume_at(name: str, path: str) -> str | None:
    """The named volume (declared at the top level) that the service mounts at path, if any."""
    for mount in SERVICES[name].get("volumes", []):
        source, _, target = mount.partition(":")
        if target.split(":")[0] == path and source in (COMPOSE.get("volumes") or {}):
            return source
    return None


def gpus_reserved(name: str) -> int:
    reservations = SERVICES[name].get("deploy", {}).get("resources", {}).get("reservations", {})
    return sum(device.get("count", 0) for device in reservations.get("devices", [])
               if device.get("driver") == "nvidia" and "gpu" in device.get("capabilities", []))


def test_the_stack_holds_the_web_app_and_every_service_the_app_reaches():
    assert "web" in APP_SERVICES and WORKERS
    for name in APP_SERVICES:
        database, broker = url(name, "DATABASE_URL"), url(name, "REDIS_URL")
        assert database.scheme == "postgres" and SERVICES[database.hostname]["image"].startswith("postgres:"), name
        assert broker.scheme == "redis" and SERVICES[broker.hostname]["image"].startswith("redis:"), name


def test_the_app_logs_in_to_postgresql_as_the_database_service_sets_it_up():
    for name in APP_SERVICES:
        database = url(name, "DATABASE_URL")
        server = SERVICES[database.hostname]["environment"]
        assert database.port in (None, 5432), name
        assert database.username == server["POSTGRES_USER"], name
        assert database.password == server["POSTGRES_PASSWORD"], name
        assert database.path == f"/{server['POSTGRES_DB']}", name


def test_the_web_app_and_the_workers_run_one_image_started_once_its_database_and_broker_are_healthy():
    assert len({SERVICES[name]["image"] for name in APP_SERVICES}) == 1
    for name in APP_SERVICES:
        needed = {url(name, "DATABASE_URL").hostname, url(name, "REDIS_URL").hostname}
        depends_on = SERVICES[name]["depends_on"]
        healthy = {"condition": "service_healthy"}
        assert {host: depends_on.get(host) for host in needed} == dict.fromkeys(needed, healthy), name


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_service_has_a_health_check(name):
    healthcheck = SERVICES[name].get("healthcheck")
    assert healthcheck and healthcheck["test"][0] in ("CMD", "CMD-SHELL")


def test_the_database_the_broker_and_the_judges_state_outlive_their_containers():
    # The postgres image keeps its cluster in PGDATA, /var/lib/postgresql/data unless the service moves it.
    pgdata = SERVICES["db"]["environment"].get("PGDATA", "/var/lib/postgresql/data")
    assert named_volume_at("db", pgdata), "the database is lost with its container"
    redis = SERVICES["redis"]["command"]
    assert option(redis, "--appendonly") == "yes" and named_volume_at("redis", "/data"), "queued messages are lost"
    # One volume for all workers of the host: the sandbox slots' locks are shared.
    states = {named_volume_at(name, SERVICES[name]["environment"]["JUDGE_STATE_DIR"]) for name in WORKERS}
    assert len(states) == 1 and None not in states


def test_secrets_come_from_the_operators_environment_and_production_has_no_default_key():
    for name, service in SERVICES.items():
        for variable, value in (service.get("environment") or {}).items():
            if SECRET.search(variable):
                assert str(value).startswith("${"), f"{name}: {variable} is written into the file"
    for name in APP_SERVICES:
        assert url(name, "DATABASE_URL").password.startswith("${"), name
        # ${VAR:?message}: Compose refuses to start without it, rather than run with a known key.
        assert SERVICES[name]["environment"]["DJANGO_SECRET_KEY"].startswith("${DJANGO_SECRET_KEY:?"), name


def test_every_worker_takes_the_deployments_seed_key_and_the_web_app_never_sees_it():
    for name in APP_SERVICES:
        environment = SERVICES[name]["environment"]
        if name in WORKERS:
            # From the operator, the same on every host: a key generated per host would change the hidden inputs.
            assert environment["JUDGE_SEED_KEY"].startswith("${JUDGE_SEED_KEY:?"), name
        else:
            assert not any(variable.startswith("JUDGE_SEED_KEY") for variable in environment), name


def test_the_workers_consume_every_queue_the_app_routes_to_and_no_other():
    consumed = [queue for name in WORKERS for queue in consumed_queues(name)]
    assert set(consumed) == set(Queue.values)


@pytest.mark.parametrize("name", WORKERS)
def test_a_worker_starts_with_a_plain_compose_up_and_is_pinged_by_the_node_name_it_takes(name):
    service = SERVICES[name]
    node = option(service["command"], "--hostname")
    # Compose reads $$ as one $, which the shell of the health check then expands.
    assert f"--destination {node.replace('%h', '$$HOSTNAME')} " in service["healthcheck"]["test"][1]
    assert "profiles" not in service


@pytest.mark.parametrize("name", WORKERS)
def test_a_worker_reserves_gpus_exactly_when_it_consumes_the_gpu_queue_and_runs_one_judge_per_gpu(name):
    if Queue.GPU in consumed_queues(name):
        assert gpus_reserved(name) >= 1
        assert option(SERVICES[name]["command"], "--concurrency") == str(gpus_reserved(name))
    else:
        assert gpus_reserved(name) == 0


def test_the_workers_may_build_the_sandbox_inside_their_container_and_nothing_more():
    for name in WORKERS:
        service = SERVICES[name]
        assert service["security_opt"] == ["seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"]
        assert "privileged" not in service and "cap_add" not in service, name
    for name in set(SERVICES) - set(WORKERS):
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
    # The web service publishes, and its health check asks, the port gunicorn binds.
    port = re.search(r"--bind 0\.0\.0\.0:(\d+)", command)[1]
    assert [mapping.rsplit(":", 1)[1] for mapping in SERVICES["web"]["ports"]] == [port]
    assert f"http://127.0.0.1:{port}/" in SERVICES["web"]["healthcheck"]["test"][-1]


def test_the_image_pins_the_pytorch_the_local_setup_pins_and_runs_as_a_user_with_the_sandbox():
    image = re.search(r"^ARG TORCH_VERSION=(\S+)$", DOCKERFILE, flags=re.MULTILINE)[1]
    local = re.search(r'"torch==([^"]+)"', BOOTSTRAP)[1]
    assert re.fullmatch(r"\d+\.\d+\.\d+", image) and image == local
    assert '"torch==${TORCH_VERSION}"' in DOCKERFILE
    assert re.search(r"apt-get install [^\n]*\bbubblewrap\b", DOCKERFILE)
    users = re.findall(r"^USER (\S+)$", DOCKERFILE, flags=re.MULTILINE)
    assert users and users[-1] not in ("root", "0")


@pytest.mark.skipif(not shutil.which("docker-compose"), reason="Debian's docker-compose is not installed")
def test_docker_compose_accepts_the_file():
    environment = {**os.environ, "DJANGO_SECRET_KEY": "only-for-validation", "JUDGE_SEED_KEY": "00" * 32}
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
@pytest.mark.parametrize("missing", ["DJANGO_SECRET_KEY", "JUDGE_SEED_KEY"])
def test_docker_compose_refuses_to_start_without_a_secret_key(missing):
    given = {"DJANGO_SECRET_KEY": "only-for-validation", "JUDGE_SEED_KEY": "00" * 32}
    environment = {k: v for k, v in os.environ.items() if k not in given} | given
    del environment[missing]
    result = subprocess.run(
        ["docker-compose", "config", "--quiet"], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert f"set {missing}" in result.stderr
