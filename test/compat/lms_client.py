#!/usr/bin/env python3
"""A client of the original service (Libcast) as LMS integrations of about 2015 wrote it.

It does what such an integration does on a course page, with the same library calls:
HTTP Digest through requests, the XML parsed with ElementTree, the stream's resources listed
by pages of 50 until a page comes back short, ``int(published_at)``, and the subtitle fetched
by its ``href`` without credentials (as a browser or the LMS's server does).

    python3 lms_client.py <base-url> <username> <api-key> <stream-slug>

Prints one JSON object (what it read) on stdout and exits 0; any failure (an HTTP error, XML
it cannot parse, a date that is not an integer) ends it with a traceback and a non-zero exit
code, as it would end the LMS's request. mediactl's test suite runs it (test/compat/lms.test.ts).
"""

import json
import os
import sys
import xml.etree.ElementTree as ET

import requests
from requests.auth import HTTPDigestAuth

PAGE_SIZE = 50
TIMEOUT_SECONDS = 10


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    base_url, username, api_key, stream = argv[1:]
    base_url = base_url.rstrip("/")

    # The API key is the Digest password. A session keeps the server's nonce, so only the
    # first request is answered 401 (the challenge) before being sent again with credentials.
    api = requests.Session()
    api.auth = HTTPDigestAuth(username, api_key)

    root = api.get(base_url + "/", timeout=TIMEOUT_SECONDS)
    root.raise_for_status()
    # The services the account may use: a link per media it sees, and its file store.
    services = ET.fromstring(root.content)

    # Page by 50 until a page is shorter: with exactly 50 (or 100) resources the last page
    # asked starts past the end, which must be an empty list, not an error.
    resources = []
    pages = []
    content_ranges = []
    start = 0
    while True:
        response = api.get(
            "%s/stream/%s/resources" % (base_url, stream),
            headers={"Range": "entities=%d-%d" % (start, start + PAGE_SIZE - 1)},
            timeout=TIMEOUT_SECONDS,
        )
        response.raise_for_status()
        page = ET.fromstring(response.content).findall("resource")
        pages.append(len(page))
        content_ranges.append(response.headers.get("Content-Range"))
        resources.extend(page)
        if len(page) < PAGE_SIZE:
            break
        start += PAGE_SIZE

    listed = []
    for resource in resources:
        published_at = resource.find("published_at").text
        listed.append(
            {
                "slug": resource.find("slug").text,
                # What the clients of the original service did: Unix seconds, or a ValueError.
                "published_at": int(published_at) if published_at else None,
                "flavors": dict(
                    (flavor.get("name"), flavor.text) for flavor in resource.iter("flavor")
                ),
            }
        )

    # The first subtitle of the list, fetched without credentials from its href; its id (to
    # delete it later through /file/<slug>/subtitles/<id>) is the basename of that href.
    subtitle = None
    for resource in resources:
        found = resource.find("subtitles/subtitle")
        if found is not None:
            href = found.get("href")
            vtt = requests.get(href, timeout=TIMEOUT_SECONDS)
            subtitle = {
                "resource": resource.find("slug").text,
                "language": found.get("language"),
                "id": os.path.basename(href),
                "status": vtt.status_code,
                "content_type": vtt.headers.get("Content-Type"),
                "text": vtt.content.decode("utf-8"),
            }
            break

    json.dump(
        {
            "api_version": root.headers.get("X-Api-Version"),
            "root": services.tag,
            "media": [media.get("href") for media in services.findall("media")],
            "pages": pages,
            "content_ranges": content_ranges,
            "resources": listed,
            "subtitle": subtitle,
        },
        sys.stdout,
    )
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
