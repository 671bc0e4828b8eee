#!/usr/bin/env python3
"""A loopback FTP server for the deploy tests (pyftpdlib, Debian's
python3-pyftpdlib, which ./x installs).

    ftp_server.py --root DIR --log FILE [--drop-after N --drop MODE]
                  [--no-size] [--no-appe]

Prints "PORT <n>" once it listens on 127.0.0.1 (an ephemeral port), then
serves until killed. Anonymous users may write anywhere under DIR.

The log gets one line per event, flushed at once, in the order the server
saw them:
    received <path>      an upload completed (path relative to DIR)
    incomplete <path>    an upload ended early
    dropped <path> <n>   the server dropped the connection after n bytes

--drop-after N makes the first upload that reaches N bytes fail, once:
    session   close the data and the control connection (a network drop)
    abort     close the data connection and answer 426
    short     close the data connection and answer 226, as if the file were
              complete (a server that loses the end of a file)
--no-size and --no-appe make the server not know SIZE or APPE (500), like
some small console servers.
"""

import argparse
import logging
import os
import sys
import warnings

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import DTPHandler, FTPHandler
from pyftpdlib.servers import FTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--root", required=True)
ap.add_argument("--log", required=True)
ap.add_argument("--drop-after", type=int, default=0)
ap.add_argument("--drop", choices=["session", "abort", "short"], default="session")
ap.add_argument("--no-size", action="store_true")
ap.add_argument("--no-appe", action="store_true")
args = ap.parse_args()

log_file = open(args.log, "a", buffering=1)
state = {"dropped": False}


def log(line):
    log_file.write(line + "\n")
    log_file.flush()


def rel(path):
    return os.path.relpath(path, args.root)


class DroppingDTP(DTPHandler):
    def handle_read(self):
        super().handle_read()
        if (
            args.drop_after <= 0
            or state["dropped"]
            or not self.receive
            or self.tot_bytes_received < args.drop_after
            or self._closed
        ):
            return
        state["dropped"] = True
        name = rel(self.file_obj.name) if self.file_obj is not None else "?"
        log("dropped %s %d" % (name, self.tot_bytes_received))
        if args.drop == "session":
            self._resp = None
            self.transfer_finished = False
            cmd = self.cmd_channel
            self.close()
            cmd.close()
        elif args.drop == "abort":
            self.transfer_finished = False
            self._resp = ("426 Connection dropped by the test server.", logging.info)
            self.close()
        else:
            self.transfer_finished = True
            self._resp = ("226 Transfer complete.", logging.info)
            self.close()

    # DTPHandler binds handle_read_event to its own handle_read.
    handle_read_event = handle_read


class Handler(FTPHandler):
    dtp_handler = DroppingDTP
    proto_cmds = dict(FTPHandler.proto_cmds)

    def on_file_received(self, file):
        log("received %s" % rel(file))

    def on_incomplete_file_received(self, file):
        log("incomplete %s" % rel(file))


if args.no_size:
    del Handler.proto_cmds["SIZE"]
if args.no_appe:
    del Handler.proto_cmds["APPE"]

warnings.filterwarnings("ignore", message="write permissions assigned to anonymous user")
authorizer = DummyAuthorizer()
authorizer.add_anonymous(args.root, perm="elradfmwMT")
Handler.authorizer = authorizer
Handler.banner = "cellport test server ready"
logging.basicConfig(level=logging.WARNING)

server = FTPServer(("127.0.0.1", 0), Handler)
print("PORT %d" % server.address[1], flush=True)
sys.stdout.flush()
server.serve_forever(handle_exit=True)
