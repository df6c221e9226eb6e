"""Download the false-alarm corpus: real HTTP, auth and cloud SDK libraries from PyPI and npm.

    python bench/fetch_corpus.py          # download what is missing, unpack, print the total
    python bench/fetch_corpus.py --jobs 2 # fewer parallel downloads

Everything lands under ``bench/.corpus/`` (git-ignored): the archives in ``fp-downloads/``,
each package unpacked in ``fp/pypi/NAME-VERSION/`` or ``fp/npm/NAME-VERSION/``. A package is
fetched once (its folder holds a ``.complete`` marker), so the command is idempotent; once it
has run, ``bench/false_alarms.py`` needs no network.

PyPI packages come as sdists (source, tests and docs, as a vendored copy or a CI checkout
holds them). Preparing an sdist's metadata runs its build backend; a small virtual environment
under ``bench/.corpus/fp-pip/`` holds the common backends so pip needs no isolated build per
package (40 s each otherwise). A package whose sdist cannot be read that way is taken as a
wheel. npm packages come through ``npm pack NAME@VERSION``. Versions are pinned, so every run
scans the same bytes.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "bench" / ".corpus"
ROOT = CORPUS / "fp"
DOWNLOADS = CORPUS / "fp-downloads"
PIP_VENV = CORPUS / "fp-pip"
MARKER = ".complete"
BACKENDS = (
    "setuptools",
    "setuptools-scm",
    "wheel",
    "hatchling",
    "hatch-vcs",
    "hatch-fancy-pypi-readme",
    "flit_core",
    "poetry-core",
    "pdm-backend",
)


def _specs(text: str) -> list[str]:
    return text.split()


PYPI = _specs("""
requests==2.32.3 httpx==0.27.2 httpcore==1.0.6 urllib3==2.2.3 aiohttp==3.10.10
requests-toolbelt==1.0.0 httplib2==0.22.0 tornado==6.4.1 websockets==13.1
botocore==1.35.36 boto3==1.35.36 s3transfer==0.10.3 aiobotocore==2.15.2
requests-aws4auth==1.3.1 minio==7.2.9
google-auth==2.35.0 google-auth-oauthlib==1.2.1 google-api-core==2.21.0
google-cloud-core==2.4.1 google-cloud-storage==2.18.2 google-cloud-secret-manager==2.20.2
google-cloud-bigquery==3.26.0 google-cloud-pubsub==2.23.0 google-api-python-client==2.149.0
oauth2client==4.1.3 firebase-admin==6.5.0
azure-identity==1.19.0 azure-core==1.31.0 azure-storage-blob==12.23.1
azure-keyvault-secrets==4.8.0 azure-keyvault-keys==4.9.0 azure-cosmos==4.7.0
azure-servicebus==7.12.3 msal==1.31.0 msal-extensions==1.2.0 msrest==0.7.1 adal==1.2.7
oauthlib==3.2.2 requests-oauthlib==2.0.0 authlib==1.3.2 pyjwt==2.9.0 python-jose==3.3.0
itsdangerous==2.2.0 pysaml2==7.5.0 social-auth-core==4.5.4 auth0-python==4.7.2
django==5.1.2 djangorestframework==3.15.2 djangorestframework-simplejwt==5.3.1
django-oauth-toolkit==2.4.0 flask==3.0.3 werkzeug==3.0.4 flask-login==0.6.3
flask-jwt-extended==4.6.0 fastapi==0.115.2 starlette==0.40.0 sanic==24.6.0
kubernetes==31.0.0 docker==7.1.0 hvac==2.3.0 paramiko==3.5.0 keyring==25.4.1
openai==1.51.2 anthropic==0.36.0 stripe==11.1.0 twilio==9.3.3 slack-sdk==3.33.1
PyGithub==2.4.0 python-gitlab==4.13.0 jira==3.8.0 sentry-sdk==2.17.0 datadog==0.50.1
elasticsearch==8.15.1 redis==5.1.1 snowflake-connector-python==3.12.2 databricks-sdk==0.34.0
sendgrid==6.11.0 tweepy==4.14.0 praw==7.7.1 python-telegram-bot==21.6 dropbox==12.0.2
gql==3.5.0 httpie==3.2.3
""")

NPM = _specs("""
axios@1.7.7 got@14.4.3 node-fetch@3.3.2 node-fetch@2.7.0 undici@6.20.1 ky@1.7.2
superagent@10.1.1 request@2.88.2 gaxios@6.7.1
@azure/identity@4.4.1 @azure/msal-node@2.15.0 @azure/msal-browser@3.26.1
@azure/core-rest-pipeline@1.17.0 @azure/core-auth@1.8.0 @azure/storage-blob@12.25.0
@azure/keyvault-secrets@4.8.0
@aws-sdk/client-s3@3.670.0 @aws-sdk/credential-providers@3.670.0 @aws-sdk/client-sts@3.670.0
@smithy/signature-v4@4.2.0 aws-sdk@2.1691.0
googleapis-common@7.2.0 google-auth-library@9.14.2 @google-cloud/storage@7.13.0
@google-cloud/secret-manager@5.6.0 firebase-admin@12.6.0 firebase@10.14.1
passport@0.7.0 passport-oauth2@1.8.0 passport-jwt@4.0.1 jsonwebtoken@9.0.2 jose@5.9.4
simple-oauth2@5.1.0 oauth@0.10.0 openid-client@5.7.0 oidc-provider@8.5.1 next-auth@4.24.8
auth0@4.10.0 msal@1.4.18
express@4.21.1 koa@2.15.3 fastify@5.0.0 hono@4.6.5
@octokit/rest@21.0.2 @octokit/core@6.1.2 @octokit/auth-token@5.1.1 octokit@4.0.2
@slack/web-api@7.6.0 stripe@17.2.0 twilio@5.3.4 openai@4.68.0 @sendgrid/mail@8.1.3
discord.js@14.16.3 @kubernetes/client-node@0.22.0 @supabase/supabase-js@2.45.4
""")


def _unpack(archive: Path, dest: Path) -> None:
    """Unpack a tarball, zip or wheel into ``dest`` (members kept inside it)."""
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if archive.name.endswith((".zip", ".whl")):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)  # noqa: S202 - zipfile drops absolute and '..' parts
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")
    (tmp / MARKER).write_text(archive.name + "\n")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def _pip_venv() -> Path:
    python = PIP_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PIP_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *BACKENDS], check=True)
    return python


def _pip_download(python: Path, spec: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    base = [str(python), "-m", "pip", "download", "-q", "--no-deps", "-d", str(dest)]
    tries = (["--no-build-isolation", "--no-binary", ":all:"], ["--only-binary", ":all:"])
    for extra in tries:
        run = subprocess.run([*base, *extra, spec], capture_output=True, text=True)
        files = [p for p in dest.iterdir() if p.is_file()]
        if run.returncode == 0 and files:
            return files[0]
    raise RuntimeError(f"{spec}: {run.stderr.strip().splitlines()[-1:]}")


def fetch_pypi(python: Path, spec: str) -> str:
    name, version = spec.split("==")
    dest = ROOT / "pypi" / f"{name.lower()}-{version}"
    if (dest / MARKER).exists():
        return f"have {spec}"
    archive = _pip_download(python, spec, DOWNLOADS / "pypi" / dest.name)
    _unpack(archive, dest)
    return f"got  {spec} ({archive.name})"


def fetch_npm(spec: str) -> str:
    name, version = spec.rsplit("@", 1)
    dest = ROOT / "npm" / f"{name.replace('/', '+').lstrip('@')}-{version}"
    if (dest / MARKER).exists():
        return f"have {spec}"
    where = DOWNLOADS / "npm" / dest.name
    where.mkdir(parents=True, exist_ok=True)
    run = subprocess.run(
        ["npm", "pack", "--json", "--pack-destination", str(where), spec],
        capture_output=True,
        text=True,
        cwd=where,
    )
    if run.returncode != 0:
        raise RuntimeError(f"{spec}: {run.stderr.strip().splitlines()[-1:]}")
    archive = where / json.loads(run.stdout)[0]["filename"]
    _unpack(archive, dest)
    return f"got  {spec}"


def corpus_bytes(root: Path = ROOT) -> int:
    """Bytes of every regular file under ``root`` (what the scan reads)."""
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=4, help="parallel downloads (default 4)")
    args = parser.parse_args()
    python = _pip_venv()
    failed: list[str] = []

    def run(job: tuple[str, str]) -> None:
        kind, spec = job
        try:
            print(fetch_pypi(python, spec) if kind == "pypi" else fetch_npm(spec), flush=True)
        except (RuntimeError, OSError, tarfile.TarError, zipfile.BadZipFile) as exc:
            failed.append(f"{kind} {exc}")

    jobs = [("pypi", s) for s in PYPI] + [("npm", s) for s in NPM]
    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(run, jobs))
    for line in failed:
        print("FAILED", line, file=sys.stderr)
    total = corpus_bytes()
    print(f"{len(jobs) - len(failed)}/{len(jobs)} packages, {total / (1 << 20):.1f} MB unpacked")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
