// docsd's reader client (see docs/user-guide/reading.md): the version
// menu, the version banners and the search dialog of a hosted
// documentation page, drawn from
// docsd's /_/addons/ answer. Plain JavaScript, no dependencies, no
// third-party requests.
(function () {
  "use strict";
  if (window.__docsdAddons) {
    return;
  }
  window.__docsdAddons = true;

  function meta(name) {
    var el = document.querySelector('meta[name="' + name + '"]');
    return el ? el.getAttribute("content") : null;
  }

  var projectSlug = meta("readthedocs-project-slug");
  var versionSlug = meta("readthedocs-version-slug");
  var metaFilename = meta("readthedocs-resolver-filename");
  var httpStatus = meta("readthedocs-http-status") || "200";
  if (!projectSlug || !versionSlug) {
    return;
  }

  var CSS = [
    ":host{all:initial;font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--accent:#0969da;--badge:#1f2328;--badge-fg:#fff;--mark:#fff8c5}",
    "@media (prefers-color-scheme: dark){:host{--bg:#151b23;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--accent:#4493f8;--badge:#e6edf3;--badge-fg:#151b23;--mark:#5a4a00}}",
    "*{box-sizing:border-box}",
    "a{color:var(--accent);text-decoration:none}a:hover,a:focus{text-decoration:underline}",
    ".flyout{position:fixed;right:16px;bottom:16px;z-index:2147483000;color:var(--fg)}",
    ".badge{display:flex;gap:8px;align-items:center;border:0;border-radius:6px;padding:6px 12px;background:var(--badge);color:var(--badge-fg);font:inherit;font-weight:600;cursor:pointer;box-shadow:0 2px 8px rgba(0,0,0,.25)}",
    ".badge:focus-visible{outline:3px solid var(--accent);outline-offset:2px}",
    ".panel{position:absolute;right:0;bottom:calc(100% + 8px);width:280px;max-height:70vh;overflow:auto;background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:8px 12px 12px;box-shadow:0 8px 24px rgba(0,0,0,.2)}",
    ".panel[hidden]{display:none}",
    ".panel h3{margin:10px 0 4px;font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}",
    ".panel ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:2px 10px}",
    ".panel li.current a{font-weight:700;color:var(--fg)}",
    ".panel input{width:100%;font:inherit;padding:6px 8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}",
    ".banner{position:fixed;left:50%;top:12px;transform:translateX(-50%);z-index:2147483000;max-width:min(720px,calc(100vw - 24px));display:flex;gap:12px;align-items:flex-start;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-left:4px solid #d4a72c;border-radius:6px;padding:10px 12px;box-shadow:0 4px 16px rgba(0,0,0,.15)}",
    ".banner p{margin:0}",
    ".close{border:0;background:none;color:var(--muted);font:inherit;font-size:18px;line-height:1;cursor:pointer;padding:0 2px}",
    ".backdrop{position:fixed;inset:0;z-index:2147483001;background:rgba(0,0,0,.45);display:flex;justify-content:center;align-items:flex-start;padding-top:10vh}",
    ".backdrop[hidden]{display:none}",
    ".dialog{width:min(640px,calc(100vw - 24px));max-height:75vh;display:flex;flex-direction:column;background:var(--bg);color:var(--fg);border-radius:10px;box-shadow:0 12px 40px rgba(0,0,0,.35);overflow:hidden}",
    ".dialog header{display:flex;gap:8px;padding:12px;border-bottom:1px solid var(--line)}",
    ".dialog header input{flex:1;font:inherit;font-size:16px;padding:8px 10px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}",
    ".filters{padding:6px 12px;border-bottom:1px solid var(--line);color:var(--muted)}",
    ".filters:empty{display:none}",
    ".results{overflow:auto;padding:4px 0;margin:0;list-style:none}",
    ".results>li{padding:8px 12px;border-bottom:1px solid var(--line)}",
    ".results>li.selected{background:rgba(9,105,218,.08)}",
    ".results .title{font-weight:600;font-size:15px}",
    ".results .proj{display:inline-block;margin-left:6px;font-size:11px;padding:0 6px;border-radius:10px;border:1px solid var(--line);color:var(--muted)}",
    ".results .block{display:block;margin:4px 0 0 12px;color:var(--fg)}",
    ".results .block small{display:block;color:var(--muted)}",
    ".results span span,.results .hl span{background:var(--mark);font-weight:600}",
    ".empty{padding:16px 12px;color:var(--muted)}"
  ].join("\n");

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "text") {
          node.textContent = attrs[k];
        } else {
          node.setAttribute(k, attrs[k]);
        }
      });
    }
    (children || []).forEach(function (c) {
      if (c) {
        node.appendChild(c);
      }
    });
    return node;
  }

  // keepPage is url (a docs root) joined with the page's file name, a final
  // /index.html written as /.
  function keepPage(url, filename) {
    var file = (filename || "/").replace(/^\//, "");
    if (file === "index.html") {
      file = "";
    } else if (/\/index\.html$/.test(file)) {
      file = file.slice(0, -"index.html".length);
    }
    if (url.charAt(url.length - 1) !== "/") {
      url += "/";
    }
    return url + file;
  }

  // safeHighlight keeps only <span> and </span> of a server highlight (the
  // server has escaped the text itself).
  function safeHighlight(s) {
    return String(s).replace(/<(?!\/?span>)[^>]*>/g, "");
  }

  function plain(s, n) {
    s = String(s || "");
    return s.length > n ? s.slice(0, n) + " ..." : s;
  }

  function Reader(data) {
    this.data = data;
    this.addons = data.addons || {};
    this.project = (data.projects || {}).current || {};
    this.version = (data.versions || {}).current || null;
    var resolver = (data.readthedocs || {}).resolver || {};
    this.filename = resolver.filename || metaFilename || "/";
    this.host = el("docsd-addons");
    this.root = this.host.attachShadow({ mode: "open" });
    this.root.appendChild(el("style", { text: CSS }));
  }

  Reader.prototype.enabled = function (name) {
    return !!(this.addons[name] && this.addons[name].enabled);
  };

  Reader.prototype.start = function () {
    // The version menu is drawn on a project's own 404 page too: a version
    // or language link keeps the page, which the target may lack, and the
    // reader who lands there needs the menu to go back or elsewhere.
    if ((httpStatus === "200" || httpStatus === "404") && this.enabled("flyout") && this.version) {
      this.drawFlyout();
    }
    if (httpStatus === "200" && this.enabled("notifications") && this.version) {
      this.drawBanner();
    }
    if ((httpStatus === "200" || httpStatus === "404") && this.enabled("search")) {
      this.drawSearch();
    }
    document.body.appendChild(this.host);
  };

  Reader.prototype.section = function (title, items) {
    if (!items.length) {
      return null;
    }
    return el("section", { "aria-label": title }, [el("h3", { text: title }), el("ul", null, items)]);
  };

  Reader.prototype.item = function (label, href, current) {
    var a = el("a", { href: href, text: label });
    if (current) {
      a.setAttribute("aria-current", "page");
    }
    return el("li", current ? { class: "current" } : null, [a]);
  };

  Reader.prototype.drawFlyout = function () {
    var self = this;
    var data = this.data;
    var translations = (data.projects || {}).translations || [];
    var single = this.project.versioning_scheme === "single_version_without_translations";
    var langCode = (this.project.language || {}).code || "";

    var languages = [{ p: this.project, current: true }].concat(translations.map(function (t) {
      return { p: t, current: false };
    }));
    languages.sort(function (a, b) {
      var x = (a.p.language || {}).code || "", y = (b.p.language || {}).code || "";
      return x < y ? -1 : x > y ? 1 : 0;
    });
    var langItems = translations.length ? languages.map(function (l) {
      var href = l.current ? keepPage(self.version.urls.documentation, self.filename)
        : keepPage(l.p.urls.documentation, self.filename);
      return self.item((l.p.language || {}).code || l.p.slug, href, l.current);
    }) : [];
    var versionItems = single ? [] : ((data.versions || {}).active || []).map(function (v) {
      return self.item(v.slug, keepPage(v.urls.documentation, self.filename), v.slug === self.version.slug);
    });
    var labels = { pdf: "PDF", htmlzip: "HTML", epub: "EPUB" };
    var downloads = this.version.downloads || {};
    var downloadItems = ["pdf", "htmlzip", "epub"].filter(function (k) {
      return downloads[k];
    }).map(function (k) {
      return self.item(labels[k], downloads[k], false);
    });
    var urls = this.project.urls || {};
    var projectItems = [self.item("Project home", urls.home, false), self.item("Builds", urls.builds, false)];

    var searchField = null;
    if (this.enabled("search")) {
      var input = el("input", { type: "search", placeholder: "Search docs", "aria-label": "Search docs", class: "flyout-search" });
      input.addEventListener("focus", function () {
        self.openSearch("");
        input.blur();
      });
      searchField = el("section", { "aria-label": "Search" }, [el("h3", { text: "Search" }), input]);
    }

    var panel = el("div", { class: "panel", id: "docsd-flyout-panel", role: "dialog", "aria-label": "Versions and languages", hidden: "" }, [
      this.section("Languages", langItems),
      this.section("Versions", versionItems),
      this.section("Downloads", downloadItems),
      this.section("Project", projectItems),
      searchField
    ]);
    var badgeText = [];
    if (translations.length) {
      badgeText.push(langCode);
    }
    if (!single) {
      badgeText.push(this.version.slug);
    }
    var badge = el("button", {
      class: "badge", type: "button", "aria-expanded": "false", "aria-controls": "docsd-flyout-panel",
      "aria-label": "Versions and languages: " + badgeText.join(" "), text: badgeText.join(" ") || "docs"
    });
    function toggle(open) {
      if (open) {
        panel.removeAttribute("hidden");
      } else {
        panel.setAttribute("hidden", "");
      }
      badge.setAttribute("aria-expanded", open ? "true" : "false");
    }
    badge.addEventListener("click", function () {
      toggle(panel.hasAttribute("hidden"));
    });
    panel.addEventListener("keydown", function (e) {
      if (e.key === "Escape") {
        toggle(false);
        badge.focus();
      }
    });
    this.root.appendChild(el("div", { class: "flyout" }, [panel, badge]));
  };

  Reader.prototype.drawBanner = function () {
    var n = this.addons.notifications || {};
    var v = this.version;
    if (this.project.versioning_scheme === "single_version_without_translations" || v.type === "external") {
      return;
    }
    var active = (this.data.versions || {}).active || [];
    var stable = null;
    active.forEach(function (a) {
      if (a.slug === "stable") {
        stable = a;
      }
    });
    if (!stable || v.slug === this.project.default_version) {
      return;
    }
    function aliasOf(target) {
      return (target.aliases || []).some(function (a) {
        return a.slug === v.slug;
      });
    }
    var latest = null;
    active.forEach(function (a) {
      if (a.slug === "latest") {
        latest = a;
      }
    });
    var text;
    if (v.slug === "latest" || (latest && aliasOf(latest))) {
      if (!n.show_on_latest) {
        return;
      }
      text = ["This is the latest development version. Some features may not yet be available in the stable version. ", "Read the stable version of this page."];
    } else if (v.slug !== "stable" && !aliasOf(stable)) {
      if (!n.show_on_non_stable) {
        return;
      }
      text = ["You may be reading an old version of this documentation. ", "Read the latest stable version of this page."];
    } else {
      return;
    }
    var key = "docsd-banner-closed:" + this.project.slug + ":" + ((this.project.language || {}).code || "") + ":" + v.slug;
    try {
      if (window.localStorage.getItem(key)) {
        return;
      }
    } catch (e) { /* storage unavailable: show the banner */ }
    var close = el("button", { class: "close", type: "button", "aria-label": "Close", text: "\u00d7" });
    var banner = el("div", { class: "banner", role: "note", "aria-label": "Version warning" }, [
      el("p", null, [document.createTextNode(text[0]), el("a", { href: keepPage(stable.urls.documentation, this.filename), text: text[1] })]),
      close
    ]);
    close.addEventListener("click", function () {
      try {
        window.localStorage.setItem(key, "1");
      } catch (e) { /* nothing to remember it in */ }
      banner.remove();
    });
    this.root.appendChild(banner);
  };

  Reader.prototype.drawSearch = function () {
    var self = this;
    var cfg = this.addons.search || {};
    var input = el("input", { type: "search", placeholder: "Search docs", "aria-label": "Search docs", autocomplete: "off", class: "search-input" });
    var close = el("button", { class: "close", type: "button", "aria-label": "Close search", text: "\u00d7" });
    var filters = el("div", { class: "filters" });
    var checks = [];
    (cfg.filters || []).forEach(function (f) {
      var box = el("input", { type: "checkbox" });
      box.checked = !!f[2];
      checks.push({ box: box, value: f[1] });
      box.addEventListener("change", function () {
        self.query(input.value);
      });
      filters.appendChild(el("label", null, [box, document.createTextNode(" " + f[0])]));
    });
    var results = el("ul", { class: "results", role: "listbox", "aria-label": "Search results" });
    var dialog = el("div", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-label": "Search" }, [
      el("header", null, [input, close]), filters, results
    ]);
    var backdrop = el("div", { class: "backdrop", hidden: "" }, [dialog]);
    this.search = { input: input, results: results, backdrop: backdrop, checks: checks, cfg: cfg, timer: 0, seq: 0, selected: -1 };
    backdrop.addEventListener("click", function (e) {
      if (e.target === backdrop) {
        self.closeSearch();
      }
    });
    close.addEventListener("click", function () {
      self.closeSearch();
    });
    input.addEventListener("input", function () {
      clearTimeout(self.search.timer);
      self.search.timer = setTimeout(function () {
        self.query(input.value);
      }, 250);
    });
    dialog.addEventListener("keydown", function (e) {
      self.searchKey(e);
    });
    // Keys typed in the dialog stay in it: seen from the page they come
    // from docsd-addons, not from a field, and themes' shortcuts (MkDocs'
    // "n", "p", "s") would act on them.
    ["keydown", "keypress", "keyup"].forEach(function (type) {
      dialog.addEventListener(type, function (e) {
        e.stopPropagation();
      });
    });
    var hotkeys = this.addons.hotkeys || {};
    var hotSearch = hotkeys.search || {};
    var hotChar = triggerChar(hotSearch.trigger);
    if (hotkeys.enabled && hotSearch.enabled && hotChar) {
      // The character typed, not the key pressed (e.key, not e.code): "/"
      // is Shift+7 on German and other layouts, and the numeric keypad's
      // divide key. Listened to first (window, capture), so a theme's own
      // shortcut on the same key (MkDocs' help on "/") does not run too.
      window.addEventListener("keydown", function (e) {
        var t = e.composedPath ? e.composedPath()[0] : e.target;
        if (e.key !== hotChar || e.ctrlKey || e.metaKey || e.altKey || e.isComposing || editable(t)) {
          return;
        }
        e.preventDefault();
        e.stopPropagation();
        self.openSearch("");
      }, true);
    }
    this.hookThemeSearch();
    this.root.appendChild(backdrop);
  };

  // triggerChar is the character a hotkey trigger of the Addons API names:
  // the API names keys as KeyboardEvent.code does ("Slash", "KeyK",
  // "Digit1"); "" for one that names no character.
  function triggerChar(trigger) {
    var m = /^(?:Key([A-Z])|Digit([0-9]))$/.exec(trigger || "");
    if (m) {
      return m[1] ? m[1].toLowerCase() : m[2];
    }
    if (trigger === "Slash") {
      return "/";
    }
    return trigger && trigger.length === 1 ? trigger : "";
  }

  // editable reports whether typing into element t types text.
  function editable(t) {
    var tag = t && t.tagName ? t.tagName.toLowerCase() : "";
    return tag === "input" || tag === "textarea" || tag === "select" || !!(t && t.isContentEditable);
  }

  // themeSearchFields are the search fields of Sphinx's and MkDocs'
  // themes: a form sending q to search.html (Sphinx's basic theme and
  // those built on it, alabaster, Read the Docs' theme, furo; MkDocs'
  // readthedocs theme), the field of the mkdocs theme's search dialog, and
  // Material's. themeSearchTriggers open the mkdocs theme's dialog.
  var themeSearchFields = 'form[action$="search.html"] input[name="q"], #mkdocs-search-query, input.md-search__input';
  var themeSearchTriggers = '[data-target="#mkdocs_search_modal"], [data-bs-target="#mkdocs_search_modal"]';

  // hookThemeSearch makes the theme's own search box open docsd's
  // server-side search instead of the theme's client-side one, as Read the
  // Docs' Addons do (its readthedocs-search-show event opens it too, for
  // pages set up for Read the Docs).
  Reader.prototype.hookThemeSearch = function () {
    var self = this;
    document.addEventListener("focusin", function (e) {
      var t = e.target;
      if (!t || !t.matches || !t.matches(themeSearchFields)) {
        return;
      }
      var text = t.value || "";
      t.blur();
      // The mkdocs theme's dialog ("s") is closed first: it takes the
      // focus back from any field outside it while it is open.
      var modal = t.closest(".modal");
      var dismiss = modal && modal.querySelector('[data-dismiss="modal"], [data-bs-dismiss="modal"]');
      if (dismiss) {
        dismiss.click();
      }
      self.openSearch(text);
    }, true);
    window.addEventListener("click", function (e) {
      var t = e.target && e.target.closest ? e.target.closest(themeSearchTriggers) : null;
      if (t) {
        e.preventDefault();
        e.stopPropagation();
        self.openSearch("");
      }
    }, true);
    document.addEventListener("readthedocs-search-show", function () {
      self.openSearch("");
    });
  };

  Reader.prototype.openSearch = function (text) {
    var s = this.search;
    if (!s) {
      return;
    }
    s.backdrop.removeAttribute("hidden");
    if (text) {
      s.input.value = text;
      this.query(text);
    }
    s.input.focus();
  };

  Reader.prototype.closeSearch = function () {
    this.search.input.blur(); // or the next "/" would be typed into it
    this.search.backdrop.setAttribute("hidden", "");
  };

  Reader.prototype.searchKey = function (e) {
    var s = this.search;
    var items = s.results.querySelectorAll(":scope > li[data-href]");
    if (e.key === "Escape") {
      e.preventDefault();
      this.closeSearch();
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!items.length) {
        return;
      }
      s.selected = (s.selected + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
      items.forEach(function (li, i) {
        li.classList.toggle("selected", i === s.selected);
        li.setAttribute("aria-selected", i === s.selected ? "true" : "false");
      });
      items[s.selected].scrollIntoView({ block: "nearest" });
    } else if (e.key === "Enter" && s.selected >= 0 && items[s.selected]) {
      e.preventDefault();
      window.location.href = items[s.selected].getAttribute("data-href");
    }
  };

  Reader.prototype.query = function (text) {
    var self = this;
    var s = this.search;
    text = text.trim();
    if (text.length < 3) {
      s.results.textContent = "";
      return;
    }
    var checked = s.checks.filter(function (c) {
      return c.box.checked;
    }).map(function (c) {
      return c.value;
    });
    var filter = checked.length ? checked.join(" ") : (s.cfg.default_filter || "");
    var seq = ++s.seq;
    fetch("/_/api/v3/search/?q=" + encodeURIComponent((filter + " " + text).trim()), { credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) {
          throw new Error("search answered " + r.status);
        }
        return r.json();
      })
      .then(function (body) {
        if (seq === s.seq) {
          self.showResults(text, body.results || []);
        }
      })
      .catch(function () {
        if (seq === s.seq) {
          s.results.textContent = "";
        }
      });
  };

  Reader.prototype.showResults = function (text, results) {
    var self = this;
    var s = this.search;
    s.results.textContent = "";
    s.selected = -1;
    if (!results.length) {
      s.results.appendChild(el("li", { class: "empty", text: "No results for \"" + text + "\"" }));
      return;
    }
    results.forEach(function (r) {
      var project = r.project || {};
      var other = project.slug && project.slug !== self.project.slug;
      var href = other && r.domain ? r.domain + r.path : r.path;
      var title = el("a", { class: "title", href: href });
      var th = (r.highlights || {}).title || [];
      if (th.length) {
        title.innerHTML = safeHighlight(th[0]);
      } else {
        title.textContent = r.title;
      }
      var li = el("li", { "data-href": href, role: "option" }, [title]);
      if (other) {
        li.appendChild(el("span", { class: "proj", text: "project: " + (project.alias || project.slug) }));
      }
      (r.blocks || []).forEach(function (b) {
        var h = b.highlights || {};
        var bt = el("span", { class: "hl" });
        if ((h.title || []).length) {
          bt.innerHTML = safeHighlight(h.title[0]);
        } else {
          bt.textContent = b.title || "";
        }
        var bc = el("small", { class: "hl" });
        if ((h.content || []).length) {
          bc.innerHTML = safeHighlight(h.content[0]);
        } else {
          bc.textContent = plain(b.content, 80);
        }
        li.appendChild(el("a", { class: "block", href: href + "#" + (b.id || "") }, [bt, bc]));
      });
      s.results.appendChild(li);
    });
  };

  var url = "/_/addons/?api-version=1&client-version=docsd&project-slug=" + encodeURIComponent(projectSlug) +
    "&version-slug=" + encodeURIComponent(versionSlug);
  fetch(url, { credentials: "same-origin" })
    .then(function (r) {
      if (r.status !== 200) {
        throw new Error("addons answered " + r.status);
      }
      return r.json();
    })
    .then(function (data) {
      var detail = { data: function () { return data; } };
      window.ReadTheDocsEventData = detail;
      document.dispatchEvent(new CustomEvent("readthedocs-addons-data-ready", { detail: detail }));
      new Reader(data).start();
    })
    .catch(function () { /* R.5.4: a failed answer draws nothing */ });
})();
