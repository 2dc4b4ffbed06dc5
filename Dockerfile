# One image for the web app and the judge workers (docker-compose.yml gives the workers their command).
FROM python:3.11-slim-bookworm

# bubblewrap is the sandbox that judged code runs in.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# PyTorch first and pinned, in its own layer: it is by far the largest and changes least. The PyPI wheel
# bundles CUDA, which the GPU worker needs; build with
# --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu for a much smaller CPU-only image.
ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://pypi.org/simple
RUN pip install --index-url "$TORCH_INDEX_URL" "torch==${TORCH_VERSION}"

WORKDIR /app
# The dependencies from pyproject.toml alone, so that a code change does not reinstall them.
COPY pyproject.toml README.md ./
RUN mkdir interview runner && touch interview/__init__.py runner/__init__.py && pip install -e .
COPY . .

# The judge workers keep their state (the hidden tests' seed key, sandbox slot locks) in a volume mounted at
# /var/lib/interview-judge; the directory exists here so that the volume starts owned by the app user.
RUN useradd --create-home --uid 10001 app && mkdir -p staticfiles /var/lib/interview-judge \
    && chown app staticfiles /var/lib/interview-judge
USER app

EXPOSE 8000
# The web app: bring the schema and the content up to date, collect static files, then serve.
CMD ["sh", "-c", "python manage.py migrate --no-input && python manage.py sync_content && python manage.py collectstatic --no-input -v 0 && exec gunicorn interview.wsgi --bind 0.0.0.0:8000 --access-logfile -"]
