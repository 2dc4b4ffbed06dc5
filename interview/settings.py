"""Django settings, read from the environment (every variable is documented in docs/settings.md).

The defaults serve one person on one laptop: SQLite, an embedded queue, and DEBUG off, so the default install
behaves as deployed (the site's own error pages, static files served by WhiteNoise); DJANGO_DEBUG=1 turns it on
while developing. DJANGO_ENV=production marks a multi-user deployment, where a missing secret key or DEBUG left
on stops the process at start-up.
"""

import os
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from interview.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DJANGO_ENV = env_str("DJANGO_ENV", "local")
if DJANGO_ENV not in {"local", "production"}:
    raise ImproperlyConfigured(f"DJANGO_ENV={DJANGO_ENV!r}: expected 'local' or 'production'")
PRODUCTION = DJANGO_ENV == "production"

SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_ENV=production")
    SECRET_KEY = "django-insecure-local-only-never-deploy-this-key"

DEBUG = env_bool("DJANGO_DEBUG", default=False)
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("DJANGO_DEBUG must be off when DJANGO_ENV=production")

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "interview",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "interview.lost_connection.RetryReadsOnLostConnection",
]

ROOT_URLCONF = "interview.urls"
WSGI_APPLICATION = "interview.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "interview.navigation.main_navigation",
            ],
        },
    },
]

# A persistent connection the server ended (a restart, a failover, an administrator's terminate) is found
# dead before a request uses it, not by the request's first query answering 500; one ended after that check,
# while the request has only read, is replaced and the view run again (interview/lost_connection.py).
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web app and the worker share the file: the write-ahead log lets readers run beside one writer,
    # the busy timeout makes a writer wait for the lock instead of failing, and IMMEDIATE transactions
    # take the write lock up front so two writers never deadlock on an upgrade.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
    }
    # A file, not memory, so that the judge workers the end-to-end tests start can open the test database;
    # one per test run, since several runs may share a checkout.
    DATABASES["default"]["TEST"] = {"NAME": str(Path(tempfile.gettempdir()) / f"interview-test-{os.getpid()}.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Password log-ins are throttled per account and per address (interview/auth.py).
AUTHENTICATION_BACKENDS = ["interview.auth.ThrottledModelBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Mail, which carries password resets: SMTP where EMAIL_HOST is set (a deployment); otherwise each message is
# a file under EMAIL_FILE_PATH, where the one person of the default install reads the reset link (README).
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_FILE_PATH = Path(env_str("EMAIL_FILE_PATH", str(BASE_DIR / "var" / "mail")))
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.filebased.EmailBackend"
)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Interview Trainer <noreply@localhost>")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", default=PRODUCTION)
if PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# Where the question bank and the problem packages live (git is their source of truth).
CONTENT_DIR = Path(env_str("INTERVIEW_CONTENT_DIR", str(BASE_DIR / "problems")))

REDIS_URL = env_str("REDIS_URL")

# A signed-in request reads its session and its user first: from a cache every web process shares (Redis
# where there is one, else files on this machine, which the embedded default is confined to anyway). Sessions
# are written through to the database and users forgotten there whenever one is saved (interview/auth.py), so
# a log-out, a new log-in, a changed password or a deactivated account shows in every process at once.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_CACHE_ALIAS = "sessions"
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "sessions": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
              "LOCATION": str(BASE_DIR / "var" / "sessions"), "OPTIONS": {"MAX_ENTRIES": 2000}}
    ),
}

# Judging: see docs/architecture.md, "The data flow of a submission", and docs/operating.md.
# Unset: the judge engine's own default under the home directory. Every judge on a host must share it, since
# it holds the locks that hand out the sandbox uids.
JUDGE_STATE_DIR = env_str("JUDGE_STATE_DIR") or None
# The hidden tests' seed key, as hex, in the variable or in a file (a mounted secret): the same for every worker
# of a deployment, so a stored seed index means the same hidden inputs on every host. Unset, the judge creates
# one under JUDGE_STATE_DIR, which serves one machine only: a production worker refuses to start without it
# (interview/judge/engine.py, seed_key).
JUDGE_SEED_KEY = env_str("JUDGE_SEED_KEY") or None
JUDGE_SEED_KEY_FILE = env_str("JUDGE_SEED_KEY_FILE") or None
JUDGE_SANDBOX_UID_BASE = env_int("JUDGE_SANDBOX_UID_BASE", 60000)
# A delegated cgroup v2 directory: each sandbox then runs in a group of its own under it (docs/operating.md).
JUDGE_CGROUP_ROOT = env_str("JUDGE_CGROUP_ROOT") or None
JUDGE_RATE_LIMIT_PER_MINUTE = env_int("JUDGE_RATE_LIMIT_PER_MINUTE", 10)
JUDGE_MAX_QUEUED_PER_USER = env_int("JUDGE_MAX_QUEUED_PER_USER", 3)
JUDGE_MAX_SOURCE_BYTES = env_int("JUDGE_MAX_SOURCE_BYTES", 64 * 1024)
JUDGE_LEASE_SECONDS = env_int("JUDGE_LEASE_SECONDS", 60)
JUDGE_SWEEP_SECONDS = env_int("JUDGE_SWEEP_SECONDS", 10)
JUDGE_QUEUED_GRACE_SECONDS = env_int("JUDGE_QUEUED_GRACE_SECONDS", 60)
JUDGE_MAX_ATTEMPTS = env_int("JUDGE_MAX_ATTEMPTS", 3)
# Sandboxed processes each judge process keeps started (torch imported), each lent to one submission; 0 starts
# every sandbox cold. Two cover a full judge, the user's process and the reference's; a third lets a cached Submit
# judge its later hidden tests in a second lane (interview/judge/engine.py, LANE_PROCESSES).
JUDGE_POOL_SIZE = env_int("JUDGE_POOL_SIZE", 3)
# Refills start under SCHED_IDLE where the worker may raise them back (root or CAP_SYS_NICE).
JUDGE_POOL_IDLE_PRIORITY = env_bool("JUDGE_POOL_IDLE_PRIORITY", True)
EMBEDDED_QUEUE_DIR = Path(env_str("CELERY_QUEUE_DIR", str(BASE_DIR / "var" / "queue")))

# Celery (interview/celery.py reads every CELERY_* name below). The database row is the source of truth,
# so there is no result backend; messages carry ids as JSON, never pickles.
# The file-system transport ignores the host name; naming one keeps kombu from warning that none was given.
CELERY_BROKER_URL = REDIS_URL or "filesystem://localhost/"
if REDIS_URL:
    # A message a worker took but never acknowledged goes back to the queue after this long. It exceeds the
    # longest judge's hard time limit, so a slow judge is not handed to a second worker while it runs; a
    # worker that died is covered sooner by the lease and the sweep.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 2 * 60 * 60}
else:
    # Web and worker exchange messages as files in one folder: a worker takes a message by renaming it into
    # `processed/` (atomic on one file system, so one worker wins), and nothing needs a running service.
    # kombu's transport, with an idle worker woken by inotify as a message lands (interview/judge/folder_queue.py);
    # it looks on its own only every polling_interval seconds, for an event the kernel dropped.
    CELERY_BROKER_TRANSPORT = "interview.judge.folder_queue:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(EMBEDDED_QUEUE_DIR / "messages"),
        "data_folder_out": str(EMBEDDED_QUEUE_DIR / "messages"),
        "control_folder": str(EMBEDDED_QUEUE_DIR / "control"),
        "processed_folder": str(EMBEDDED_QUEUE_DIR / "processed"),
        "store_processed": True,
        "polling_interval": 1.0,
    }
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A request that publishes while the broker is down gives up quickly: the row stays queued and the sweep
# sends it once the broker is back.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.3, "interval_max": 0.6}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
# What a worker loads before it starts: the judge task, and the signal handlers that drive a worker's life.
CELERY_IMPORTS = ("interview.judge.tasks", "interview.judge.worker")
CELERY_TASK_DEFAULT_QUEUE = "cpu"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_DISABLE_RATE_LIMITS = True
# A judge keeps running when the broker connection drops: its result goes to the database, and the message
# redelivered later finds the submission finished.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
}
