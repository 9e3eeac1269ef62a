// docsd dashboard. The build page follows a running build with the public
// GraphQL endpoint's buildUpdated subscription over Server-Sent Events
// (graphql-sse, distinct connections: one POST whose answer streams
// `event: next` until `event: complete`). Signed-in viewers send the
// session's CSRF token, without which /graphql ignores the session cookie.
// A stream that breaks before the build finished is opened again.
"use strict";

// The project tab of the page shown is marked as the current page, for
// screen readers (aria-current) and by its style.
(function () {
  document.querySelectorAll("nav.tabs a").forEach(function (a) {
    if (a.origin === window.location.origin && a.pathname === window.location.pathname) {
      a.setAttribute("aria-current", "page");
    }
  });
})();

(function () {
  var box = document.getElementById("build");
  if (!box || box.dataset.finished === "true" || !window.fetch || !window.TextDecoder) {
    return;
  }
  // The running times ("Took" and each running command's) count every
  // second from their start (data-since) by the server's clock (data-now:
  // when the page was made), until the build finishes.
  var skew = Date.parse(box.dataset.now || "") - Date.now();
  if (isNaN(skew)) {
    skew = 0;
  }
  function secondsSince(since) {
    return Math.max(0, Math.floor((Date.now() + skew - Date.parse(since)) / 1000)) + "s";
  }
  var ticker = setInterval(function () {
    document.querySelectorAll("#build-duration[data-since], #build-commands [data-since]").forEach(function (el) {
      el.textContent = secondsSince(el.dataset.since);
    });
    if (box.dataset.finished === "true") {
      clearInterval(ticker);
    }
  }, 1000);

  // took mirrors pages.go's took and running: the stored duration once
  // finished, the time since the start while running, nothing queued.
  function setTook(el, finished, since, seconds) {
    if (!finished && since) {
      el.dataset.since = since;
      el.textContent = secondsSince(since);
    } else {
      delete el.dataset.since;
      el.textContent = seconds != null ? seconds + "s" : "";
    }
  }
  var meta = document.querySelector('meta[name="csrf-token"]');
  var headers = { "Content-Type": "application/json", "Accept": "text/event-stream" };
  if (meta) {
    headers["X-CSRFToken"] = meta.content;
  }
  var body = JSON.stringify({ query: box.dataset.query, variables: { id: box.dataset.build } });

  // label mirrors pages.go's buildStatus: a cancelled build is finished,
  // unsuccessful, with the errorId of a manual cancel.
  function label(b) {
    if (b.state.code !== "finished") {
      return [b.state.name, "running"];
    }
    if (b.success) {
      return ["Passed", "passed"];
    }
    return b.errorId === "build:user:cancelled" ? ["Cancelled", "cancelled"] : ["Failed", "failed"];
  }

  function show(b) {
    var state = document.getElementById("build-state");
    var l = label(b);
    state.textContent = l[0];
    state.className = "state " + l[1];
    document.getElementById("build-commit").textContent = (b.commit || "").slice(0, 8);
    var finished = b.state.code === "finished";
    setTook(document.getElementById("build-duration"), finished, b.started, b.duration);
    var err = document.getElementById("build-error");
    err.textContent = b.error || "";
    err.hidden = !b.error;
    document.getElementById("build-docs").hidden = !(b.state.code === "finished" && b.success);
    var list = document.getElementById("build-commands");
    var items = [];
    b.commands.forEach(function (c) {
      var li = document.createElement("li");
      var head = document.createElement("div");
      head.className = "cmd";
      var code = document.createElement("code");
      code.textContent = c.command;
      head.appendChild(code);
      if (c.exitCode != null) {
        var exit = document.createElement("span");
        exit.className = "exit";
        exit.textContent = " exit " + c.exitCode;
        head.appendChild(exit);
      }
      head.appendChild(document.createTextNode(" "));
      var took = document.createElement("span");
      took.className = "took";
      setTook(took, finished || c.runTime != null, c.startTime, c.runTime);
      head.appendChild(took);
      li.appendChild(head);
      if (c.output) {
        var pre = document.createElement("pre");
        pre.textContent = c.output;
        li.appendChild(pre);
      }
      items.push(li);
    });
    list.replaceChildren.apply(list, items);
    if (finished) {
      box.dataset.finished = "true";
      var cancel = document.getElementById("build-cancel");
      if (cancel) {
        cancel.remove();
      }
    }
  }

  // handle takes one SSE event block; it returns false to stop following.
  function handle(block) {
    var event = "", data = "";
    block.split("\n").forEach(function (line) {
      if (line.indexOf("event:") === 0) {
        event = line.slice(6).trim();
      } else if (line.indexOf("data:") === 0) {
        data += line.slice(5).trim();
      }
    });
    if (event !== "next" || !data) {
      return true;
    }
    var msg = JSON.parse(data);
    if (msg.errors && msg.errors.length) {
      return false; // the build is gone or no longer visible: keep what is shown
    }
    show(msg.data.buildUpdated);
    return true;
  }

  function follow() {
    fetch("/graphql", { method: "POST", headers: headers, credentials: "same-origin", body: body })
      .then(function (resp) {
        if (resp.status === 401) {
          window.location = "/accounts/login/?next=" + encodeURIComponent(window.location.pathname);
          return false;
        }
        if (!resp.ok || !resp.body) {
          var wait = parseInt(resp.headers.get("Retry-After") || "1", 10);
          setTimeout(follow, Math.max(wait, 1) * 1000);
          return false;
        }
        var reader = resp.body.getReader();
        var decoder = new TextDecoder();
        var buffer = "";
        function read() {
          return reader.read().then(function (chunk) {
            if (chunk.done) {
              return true;
            }
            buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, "\n");
            var end;
            while ((end = buffer.indexOf("\n\n")) >= 0) {
              var block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              if (!handle(block)) {
                reader.cancel();
                return false;
              }
            }
            return read();
          });
        }
        return read();
      })
      .then(function (again) {
        if (again && box.dataset.finished !== "true") {
          setTimeout(follow, 1000);
        }
      })
      .catch(function () { setTimeout(follow, 1000); });
  }

  follow();
})();

// Copy buttons (data-copy names the input whose value they copy), on the
// sharing page.
(function () {
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    b.addEventListener("click", function () {
      var input = document.getElementById(b.dataset.copy);
      if (!input) {
        return;
      }
      input.select();
      var done = function () { b.textContent = "Copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
      } else {
        document.execCommand("copy");
        done();
      }
    });
  });
})();
