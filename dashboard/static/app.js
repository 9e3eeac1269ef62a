// docsd dashboard: the build page follows a running build by polling the
// public GraphQL endpoint once a second (the same query the page was
// rendered from) until the build finishes. Signed-in viewers send the
// session's CSRF token, without which /graphql ignores the session cookie.
"use strict";

(function () {
  var box = document.getElementById("build");
  if (!box || box.dataset.finished === "true") {
    return;
  }
  var query = box.dataset.query;
  var meta = document.querySelector('meta[name="csrf-token"]');
  var headers = { "Content-Type": "application/json", "Accept": "application/json" };
  if (meta) {
    headers["X-CSRFToken"] = meta.content;
  }
  var vars = { slug: box.dataset.project, id: parseInt(box.dataset.build, 10) };

  function label(b) {
    if (b.state.code !== "finished") {
      return [b.state.name, "running"];
    }
    return b.success ? ["Passed", "passed"] : ["Failed", "failed"];
  }

  function show(b) {
    var state = document.getElementById("build-state");
    var l = label(b);
    state.textContent = l[0];
    state.className = "state " + l[1];
    document.getElementById("build-commit").textContent = (b.commit || "").slice(0, 8);
    document.getElementById("build-duration").textContent = b.duration != null ? b.duration + "s" : "";
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
      li.appendChild(head);
      if (c.output) {
        var pre = document.createElement("pre");
        pre.textContent = c.output;
        li.appendChild(pre);
      }
      items.push(li);
    });
    list.replaceChildren.apply(list, items);
  }

  function poll() {
    fetch("/graphql", { method: "POST", headers: headers, credentials: "same-origin",
      body: JSON.stringify({ query: query, variables: vars }) })
      .then(function (resp) {
        if (resp.status === 401) {
          window.location = "/accounts/login/?next=" + encodeURIComponent(window.location.pathname);
          return null;
        }
        return resp.json();
      })
      .then(function (body) {
        if (!body) {
          return;
        }
        var b = body.data && body.data.project && body.data.project.build;
        if (!b) {
          setTimeout(poll, 1000);
          return;
        }
        show(b);
        if (b.state.code === "finished") {
          box.dataset.finished = "true";
          return;
        }
        setTimeout(poll, 1000);
      })
      .catch(function () { setTimeout(poll, 1000); });
  }

  setTimeout(poll, 1000);
})();
