// ideaco view: one run directory read in a browser, from file://, with no network.
// Every string from the run (agent text, names, ids) reaches the page through textContent or an
// SVG <title>'s textContent, never as markup. The timeline renders a block of simulated time only
// when it scrolls near the screen, so a long run opens at once.
(function () {
  "use strict";

  var DATA = JSON.parse(document.getElementById("ideaco-data").textContent);
  var RECORDS = null; // the full thought records, parsed on the first click
  function records() {
    if (RECORDS === null) RECORDS = JSON.parse(document.getElementById("ideaco-records").textContent);
    return RECORDS;
  }

  var people = new Map(DATA.people.map(function (p) { return [p.id, p]; }));
  var roomsById = new Map(DATA.rooms.map(function (r) { return [r.id, r]; }));
  var duration = Math.max(DATA.meta.duration || 0, 60);

  // ------------------------------------------------------------------ small helpers

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    return e;
  }
  function nameOf(id) { var p = people.get(id); return p ? p.name : id; }
  function roomName(id) { var r = roomsById.get(id); return r ? r.name : id; }

  // Clock time from an offset in seconds, read off the ISO start without time zones.
  var m = /T(\d\d):(\d\d):(\d\d)/.exec(DATA.meta.start || "") || [0, "0", "0", "0"];
  var base = (+m[1]) * 3600 + (+m[2]) * 60 + (+m[3]);
  function two(n) { return (n < 10 ? "0" : "") + n; }
  function clock(t, seconds) {
    var s = Math.floor(base + (t || 0));
    var day = Math.floor(s / 86400);
    s -= day * 86400;
    var out = two(Math.floor(s / 3600)) + ":" + two(Math.floor(s / 60) % 60);
    if (seconds) out += ":" + two(s % 60);
    return (day ? "day " + (day + 1) + " " : "") + out;
  }

  var palette = new Map();
  function colour(id) {
    if (!palette.has(id)) {
      var h = 0;
      for (var i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
      palette.set(id, id === "boss" ? "#b02a2a" : "hsl(" + (h % 360) + ", 55%, 38%)");
    }
    return palette.get(id);
  }

  // ------------------------------------------------------------------ header

  var meta = DATA.meta;
  document.getElementById("title").textContent =
    [meta.company || "ideaco run", meta.scenario].filter(Boolean).join(" - ");
  var silentN = DATA.thoughts.filter(function (t) { return !t.spoke; }).length;
  document.getElementById("facts").textContent =
    clock(0) + " to " + clock(meta.duration) + " simulated · " + DATA.messages.length + " messages · " +
    DATA.thoughts.length + " thoughts (" + silentN + " silent) · " +
    (meta.complete ? "stopped: " + (meta.stop_reason || "reached the end of the simulated time")
      : "no summary.json: still running, or killed") +
    (meta.applied ? "" : " · format " + meta.format + ": no applied changes logged");

  // ------------------------------------------------------------------ items and blocks

  // One item per message, and one per silent thought (a spoken one shows as its messages).
  var items = [];
  DATA.messages.forEach(function (msg, i) {
    items.push({ kind: "msg", i: i, t: msg.t || 0, conv: msg.conv, who: msg.sender });
  });
  DATA.thoughts.forEach(function (th, i) {
    if (!th.spoke) items.push({ kind: "sil", i: i, t: th.t || 0, conv: th.conv, who: th.emp, gate: th.gate });
  });
  items.sort(function (a, b) { return a.t - b.t || (a.kind === b.kind ? a.i - b.i : a.kind === "msg" ? -1 : 1); });

  var blockSize = duration <= 3 * 3600 ? 600 : duration <= 12 * 3600 ? 1800 : 3600;
  var nBlocks = Math.max(1, Math.ceil((duration + 1) / blockSize));
  items.forEach(function (it) { it.block = Math.min(nBlocks - 1, Math.max(0, Math.floor(it.t / blockSize))); });
  var byBlock = [];
  for (var b = 0; b < nBlocks; b++) byBlock.push([]);
  items.forEach(function (it) { byBlock[it.block].push(it); });

  // ------------------------------------------------------------------ filters

  var state = { employee: "", show: "all", from: 0, to: Math.ceil(duration / 60) * 60, hidden: new Set() };
  var gateOptions = Object.keys((DATA.silences && DATA.silences.by_gate) || {});
  DATA.thoughts.forEach(function (t) { if (!t.spoke && gateOptions.indexOf(t.gate) < 0) gateOptions.push(t.gate); });
  var show = document.getElementById("f-show");
  gateOptions.sort().forEach(function (g) {
    var o = el("option", null, "silences: " + g);
    o.value = "gate:" + g;
    show.appendChild(o);
  });
  var emp = document.getElementById("f-employee");
  DATA.people.forEach(function (p) {
    var o = el("option", null, p.name + (p.name !== p.id ? " (" + p.id + ")" : ""));
    o.value = p.id;
    emp.appendChild(o);
  });
  var from = document.getElementById("f-from"), to = document.getElementById("f-to");
  [from, to].forEach(function (r) { r.max = String(state.to); });
  from.value = "0";
  to.value = String(state.to);
  var roomsBox = document.getElementById("f-rooms");
  var teamsById = new Map((DATA.teams || []).map(function (t) { return [t.id, t]; }));
  DATA.rooms.forEach(function (r) {
    var label = el("label", "room-chip");
    var box = el("input");
    var team = teamsById.get(r.id);  // a team's work room (issue 20)
    box.type = "checkbox";
    box.checked = true;
    box.dataset.room = r.id;
    label.appendChild(box);
    label.appendChild(document.createTextNode(" " + (team ? "team " : "") + r.name));
    label.title = r.id + " (" + (team ? "team of " + team.department + ": " + team.members.join(", ") : r.kind) + ")";
    roomsBox.appendChild(label);
  });

  function visible(it) {
    if (state.hidden.has(it.conv)) return false;
    if (state.employee && it.who !== state.employee) return false;
    if (it.t < state.from || it.t > state.to + 59.999) return false;
    if (state.show === "messages") return it.kind === "msg";
    if (state.show === "silences") return it.kind === "sil";
    if (state.show.indexOf("gate:") === 0) return it.kind === "sil" && it.gate === state.show.slice(5);
    return true;
  }

  function readFilters() {
    state.employee = emp.value;
    state.show = show.value;
    var a = +from.value, z = +to.value;
    state.from = Math.min(a, z);
    state.to = Math.max(a, z);
    state.hidden = new Set();
    roomsBox.querySelectorAll("input[data-room]").forEach(function (box) {
      if (!box.checked) state.hidden.add(box.dataset.room);
    });
    document.getElementById("f-from-label").textContent = clock(state.from);
    document.getElementById("f-to-label").textContent = clock(state.to);
  }

  // ------------------------------------------------------------------ the timeline

  var head = document.getElementById("grid-head");
  var grid = document.getElementById("grid");
  var columns = [];
  var blocks = [];
  var observer = "IntersectionObserver" in window
    ? new IntersectionObserver(function (entries) {
      entries.forEach(function (e) { if (e.isIntersecting) renderBlock(+e.target.dataset.block); });
    }, { root: document.getElementById("lanes"), rootMargin: "1200px 0px" })
    : null;

  function template() { return "5.5em repeat(" + Math.max(columns.length, 1) + ", minmax(15em, 1fr))"; }

  function layout() {
    columns = DATA.rooms.filter(function (r) { return !state.hidden.has(r.id); });
    head.textContent = "";
    head.style.gridTemplateColumns = template();
    head.appendChild(el("div", "gutter", "time"));
    columns.forEach(function (r) {
      var h = el("div", "room-head");
      h.appendChild(el("span", "room-name", r.name));
      h.appendChild(el("span", "room-kind", r.kind));
      h.title = r.id + (r.members.length ? ": " + r.members.map(nameOf).join(", ") : "");
      head.appendChild(h);
    });
    var shownMsg = 0, shownSil = 0;
    items.forEach(function (it) {
      it.shown = visible(it);
      if (it.shown) { if (it.kind === "msg") shownMsg++; else shownSil++; }
    });
    document.getElementById("shown").textContent =
      shownMsg + " of " + DATA.messages.length + " messages, " + shownSil + " of " + silentN + " silences shown";
    if (observer) observer.disconnect(); // the old blocks go: stop watching them
    grid.textContent = "";
    blocks = [];
    for (var b = 0; b < nBlocks; b++) {
      var div = el("div", "block");
      div.dataset.block = String(b);
      var perColumn = {}, any = false;
      byBlock[b].forEach(function (it) {
        if (!it.shown) return;
        any = true;
        perColumn[it.conv] = (perColumn[it.conv] || 0) + (it.kind === "msg" ? 3.6 : 1.4);
      });
      var tallest = Math.max.apply(null, [0].concat(Object.keys(perColumn).map(function (k) { return perColumn[k]; })));
      div.style.minHeight = (any ? Math.max(3, tallest + 1.5) : 1.6) + "em";
      if (!any) div.classList.add("empty");
      grid.appendChild(div);
      blocks.push({ el: div, rendered: false, any: any });
      if (observer) observer.observe(div);
    }
    if (!observer) renderAll();
  }

  function renderBlock(b) {
    var block = blocks[b];
    if (!block || block.rendered) return;
    block.rendered = true;
    var div = block.el;
    div.style.gridTemplateColumns = template();
    div.style.minHeight = "";
    var label = el("div", "gutter", clock(b * blockSize));
    div.appendChild(label);
    var cells = new Map();
    columns.forEach(function (r) {
      var cell = el("div", "cell");
      cells.set(r.id, cell);
      div.appendChild(cell);
    });
    byBlock[b].forEach(function (it) {
      if (!it.shown) return;
      var cell = cells.get(it.conv);
      if (cell) cell.appendChild(it.kind === "msg" ? messageCard(it.i) : silenceMark(it.i));
    });
  }

  function renderAll() { for (var b = 0; b < blocks.length; b++) renderBlock(b); }

  function messageCard(i) {
    var msg = DATA.messages[i];
    var card = el("div", "msg" + (msg.sender === "boss" ? " boss" : msg.sender === "system" ? " system" : ""));
    card.tabIndex = 0;
    card.dataset.msg = String(i);
    card.dataset.sender = msg.sender;
    card.dataset.conv = msg.conv;
    var top = el("div", "msg-top");
    top.appendChild(el("span", "time", clock(msg.t)));
    var who = el("span", "who", nameOf(msg.sender));
    who.style.color = colour(msg.sender);
    top.appendChild(who);
    if (msg.thought !== null && msg.thought !== undefined) top.appendChild(el("span", "has-thought", "thought"));
    card.appendChild(top);
    card.appendChild(el("div", "text", msg.text));
    return card;
  }

  function silenceMark(i) {
    var th = DATA.thoughts[i];
    var mark = el("div", "sil");
    mark.tabIndex = 0;
    mark.dataset.thought = String(i);
    mark.dataset.gate = th.gate || "";
    mark.dataset.sender = th.emp;
    mark.dataset.conv = th.conv;
    var why = (th.held && th.held.rule ? th.held.gate + ": " + th.held.rule : th.gate) || "silent";
    mark.appendChild(el("span", "time", clock(th.t)));
    mark.appendChild(el("span", "sil-who", nameOf(th.emp)));
    mark.appendChild(el("span", "sil-gate", why));
    mark.title = nameOf(th.emp) + " kept quiet (" + why + ")" + (th.reason ? ": " + th.reason : "");
    return mark;
  }

  // ------------------------------------------------------------------ the detail panel

  var panel = document.getElementById("detail");
  var body = document.getElementById("detail-body");

  function row(dl, key, value) {
    if (value === undefined || value === null || value === "") return;
    dl.appendChild(el("dt", null, key));
    dl.appendChild(el("dd", null, value));
  }

  function showMessage(i) {
    var msg = DATA.messages[i];
    body.textContent = "";
    body.appendChild(el("h3", null, "Message in " + roomName(msg.conv)));
    var dl = el("dl");
    row(dl, "at", clock(msg.t, true));
    row(dl, "from", nameOf(msg.sender));
    row(dl, "room", msg.conv);
    row(dl, "mentions", msg.mentions.map(nameOf).join(", "));
    row(dl, "id", msg.id);
    body.appendChild(dl);
    body.appendChild(el("blockquote", "said", msg.text));
    if (msg.thought !== null && msg.thought !== undefined) {
      showThought(msg.thought, true);
    } else {
      body.appendChild(el("p", "hint", msg.sender === "boss" ? "The boss's line: no thought behind it."
        : msg.sender === "system" ? "Posted by the engine." : "No logged thought posted this message."));
    }
    open();
  }

  function showThought(i, below) {
    var th = DATA.thoughts[i];
    if (!below) {
      body.textContent = "";
      body.appendChild(el("h3", null, nameOf(th.emp) + " kept quiet in " + roomName(th.conv)));
    }
    var section = el("section", "thought");
    section.appendChild(el("h4", null, "The thought behind it"));
    var dl = el("dl");
    row(dl, "thought", th.id + " at " + clock(th.t, true));
    row(dl, "employee", nameOf(th.emp));
    row(dl, "trigger", th.trigger);
    row(dl, "interest", th.interest === null || th.interest === undefined ? null : th.interest + " / 10");
    row(dl, "saturation", th.saturation === null || th.saturation === undefined ? null : th.saturation + " / 10");
    row(dl, "spoke", th.spoke ? "yes" : "no");
    row(dl, "gate", th.spoke ? null : th.gate);
    row(dl, "reason", th.reason);
    section.appendChild(dl);
    section.appendChild(el("h5", null, "Inner thoughts"));
    section.appendChild(el("blockquote", "inner", th.inner));
    if (!th.spoke && th.drafts.length) {
      section.appendChild(el("h5", null, "Draft not posted"));
      th.drafts.forEach(function (d) { section.appendChild(el("blockquote", "draft", d)); });
    }
    if (th.held) {
      var held = el("dl");
      row(held, "held by", th.held.gate);
      row(held, "rule", th.held.rule);
      row(held, "detail", th.held.detail);
      row(held, "reopens at", th.held.reopens_at);
      section.appendChild(held);
    }
    var rec = records()[i] || {};
    if (rec.corrections && rec.corrections.length) {
      section.appendChild(el("h5", null, "Corrections"));
      var ul = el("ul");
      rec.corrections.forEach(function (c) { ul.appendChild(el("li", null, typeof c === "string" ? c : JSON.stringify(c))); });
      section.appendChild(ul);
    }
    if (rec.llm) {
      var l = rec.llm;
      section.appendChild(el("p", "hint", "model " + (l.model || "?") + " · " + (l.prompt_tokens || 0) + " prompt + " +
        (l.completion_tokens || 0) + " completion tokens · " + (l.latency_ms || 0) + " ms"));
    }
    if (rec.next_look_at) section.appendChild(el("p", "hint", "next look at " + rec.next_look_at));
    section.appendChild(el("h5", null, "Applied"));
    if (rec.applied) {
      var steps = el("ul", "steps");
      (rec.applied.steps || []).forEach(function (s) { steps.appendChild(el("li", null, stepLine(s))); });
      if (!(rec.applied.steps || []).length) steps.appendChild(el("li", null, "nothing changed"));
      section.appendChild(steps);
      var more = el("details");
      more.appendChild(el("summary", null, "the applied record (JSON)"));
      more.appendChild(el("pre", "json", JSON.stringify(rec.applied, null, 2)));
      section.appendChild(more);
    } else {
      section.appendChild(el("p", "hint", "This run's format logs no applied changes."));
    }
    var whole = el("details");
    whole.appendChild(el("summary", null, "the whole thought (JSON)"));
    whole.appendChild(el("pre", "json", JSON.stringify(rec.thought || {}, null, 2)));
    section.appendChild(whole);
    body.appendChild(section);
    if (!below) open();
  }

  function stepLine(s) {
    var parts = [s.step];
    if (s.step === "mind") {
      parts.push(nameOf(s.employee) + ":");
      ["memory", "relationships", "tasks", "stamina", "mood", "notes", "summary"].forEach(function (k) {
        if (s[k] !== undefined) parts.push(k);
      });
      (s.relationships || []).forEach(function (r) {
        parts.push("(" + nameOf(r.employee) + " " + r.before + " -> " + r.after + ")");
      });
    } else if (s.step === "draft") {
      parts.push(s.conversation || "");
      parts.push(s.posted ? "posted " + s.posted : "held: " + [s.gate, s.rule].filter(Boolean).join(" "));
    } else {
      Object.keys(s).forEach(function (k) {
        if (k !== "step" && typeof s[k] !== "object") parts.push(k + "=" + s[k]);
      });
    }
    return parts.join(" ");
  }

  function open() { panel.hidden = false; panel.scrollTop = 0; }
  document.getElementById("detail-close").addEventListener("click", function () { panel.hidden = true; });

  grid.addEventListener("click", function (e) {
    var target = e.target.closest(".msg, .sil");
    if (!target) return;
    grid.querySelectorAll(".chosen").forEach(function (c) { c.classList.remove("chosen"); });
    target.classList.add("chosen");
    if (target.dataset.msg !== undefined) showMessage(+target.dataset.msg);
    else showThought(+target.dataset.thought, false);
  });
  grid.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && e.target.closest(".msg, .sil")) e.target.click();
  });

  // ------------------------------------------------------------------ charts (drawn on first view)

  var W = 760, H = 260, PAD = { l: 40, r: 150, t: 10, b: 24 };

  function lineChart(holder, series, yMax, yLabel) {
    holder.textContent = "";
    if (!series.length) { holder.appendChild(el("p", "hint", "Nothing to draw for this run.")); return; }
    var s = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img" });
    var x = function (t) { return PAD.l + (W - PAD.l - PAD.r) * Math.min(t, duration) / duration; };
    var y = function (v) { return H - PAD.b - (H - PAD.t - PAD.b) * v / yMax; };
    [0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
      s.appendChild(svg("line", { x1: PAD.l, x2: W - PAD.r, y1: y(f * yMax), y2: y(f * yMax), class: "rule" }));
      var lab = svg("text", { x: PAD.l - 4, y: y(f * yMax) + 4, "text-anchor": "end", class: "tick" });
      lab.textContent = String(Math.round(f * yMax));
      s.appendChild(lab);
    });
    var hours = Math.max(1, Math.ceil(duration / 3600 / 8));
    for (var h = 0; h * 3600 <= duration; h += hours) {
      var lab = svg("text", { x: x(h * 3600), y: H - 6, "text-anchor": "middle", class: "tick" });
      lab.textContent = clock(h * 3600);
      s.appendChild(lab);
    }
    var yl = svg("text", { x: 4, y: PAD.t + 8, class: "tick" });
    yl.textContent = yLabel;
    s.appendChild(yl);
    series.forEach(function (line, k) {
      var pts = line.points.map(function (p) { return x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1); });
      var last = line.points[line.points.length - 1];
      if (last && last[0] < duration) pts.push(x(duration).toFixed(1) + "," + y(last[1]).toFixed(1));
      var pl = svg("polyline", { points: pts.join(" "), fill: "none", stroke: line.colour, "stroke-width": 1.6 });
      var title = svg("title");
      title.textContent = line.name;
      pl.appendChild(title);
      s.appendChild(pl);
      var key = svg("text", { x: W - PAD.r + 10, y: PAD.t + 12 + k * 14, fill: line.colour, class: "key" });
      key.textContent = line.name;
      s.appendChild(key);
    });
    holder.appendChild(s);
  }

  function talkGraph(holder) {
    holder.textContent = "";
    var edges = DATA.talk || [];
    if (!edges.length) { holder.appendChild(el("p", "hint", "Nobody addressed anybody in this run.")); return; }
    var ids = [];
    edges.forEach(function (e) { [e.from, e.to].forEach(function (p) { if (ids.indexOf(p) < 0) ids.push(p); }); });
    var size = 520, c = size / 2, radius = size / 2 - 70;
    var pos = new Map(ids.map(function (id, k) {
      var a = 2 * Math.PI * k / ids.length - Math.PI / 2;
      return [id, [c + radius * Math.cos(a), c + radius * Math.sin(a)]];
    }));
    var most = Math.max.apply(null, edges.map(function (e) { return e.count; }));
    var s = svg("svg", { viewBox: "0 0 " + size + " " + size, width: size, height: size, role: "img" });
    var defs = svg("defs");
    var marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" });
    marker.appendChild(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }));
    defs.appendChild(marker);
    s.appendChild(defs);
    edges.forEach(function (e) {
      var a = pos.get(e.from), z = pos.get(e.to);
      var dx = z[0] - a[0], dy = z[1] - a[1], len = Math.hypot(dx, dy) || 1;
      var ux = dx / len, uy = dy / len, r = 22;
      var x1 = a[0] + ux * r, y1 = a[1] + uy * r, x2 = z[0] - ux * r, y2 = z[1] - uy * r;
      var mx = (x1 + x2) / 2 - uy * 18, my = (y1 + y2) / 2 + ux * 18; // bend: both directions show
      var path = svg("path", {
        d: "M " + x1.toFixed(1) + " " + y1.toFixed(1) + " Q " + mx.toFixed(1) + " " + my.toFixed(1) + " " + x2.toFixed(1) + " " + y2.toFixed(1),
        class: "edge", "stroke-width": (0.8 + 5 * e.count / most).toFixed(2), "marker-end": "url(#arrow)",
      });
      var title = svg("title");
      title.textContent = nameOf(e.from) + " -> " + nameOf(e.to) + ": " + e.count;
      path.appendChild(title);
      s.appendChild(path);
    });
    ids.forEach(function (id) {
      var p = pos.get(id);
      var g = svg("g", { class: "node" });
      var circle = svg("circle", { cx: p[0].toFixed(1), cy: p[1].toFixed(1), r: 20, fill: colour(id) });
      g.appendChild(circle);
      var label = svg("text", { x: p[0].toFixed(1), y: (p[1] + (p[1] < c ? -26 : 36)).toFixed(1), "text-anchor": "middle" });
      label.textContent = nameOf(id);
      g.appendChild(label);
      s.appendChild(g);
    });
    holder.appendChild(s);
  }

  function staminaChart() {
    var series = Object.keys(DATA.stamina || {}).filter(function (id) { return DATA.stamina[id].length > 1; })
      .map(function (id) {
        return { name: nameOf(id), colour: colour(id), points: DATA.stamina[id].map(function (p) { return [p[0], p[1]]; }) };
      });
    lineChart(document.getElementById("stamina"), series, 100, "comfort");
  }

  var affWho = document.getElementById("aff-who");
  function affinityChart() {
    var mine = DATA.affinity[affWho.value] || {};
    var series = Object.keys(mine).map(function (other) {
      return { name: nameOf(other), colour: colour(other), points: mine[other] };
    });
    lineChart(document.getElementById("affinity"), series, 100, "affinity");
  }
  Object.keys(DATA.affinity || {}).forEach(function (id) {
    var o = el("option", null, nameOf(id));
    o.value = id;
    affWho.appendChild(o);
  });
  affWho.addEventListener("change", affinityChart);

  // ------------------------------------------------------------------ summary and metrics

  function table(headers, rows) {
    var t = el("table");
    var tr = el("tr");
    headers.forEach(function (h) { tr.appendChild(el("th", null, h)); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var line = el("tr");
      r.forEach(function (v) { line.appendChild(el("td", typeof v === "number" ? "num" : null, v === null || v === undefined ? "-" : v)); });
      t.appendChild(line);
    });
    return t;
  }

  function summaryTab() {
    var box = document.getElementById("summary");
    box.textContent = "";
    box.appendChild(el("h2", null, "The run"));
    box.appendChild(table(["", ""], [
      ["directory", meta.path], ["company", meta.company], ["scenario", meta.scenario],
      ["simulated", clock(0) + " to " + clock(meta.duration) + " (" + (meta.duration / 3600).toFixed(2) + " h)"],
      ["state format", meta.format], ["stop reason", meta.stop_reason || (meta.complete ? "reached the end of the simulated time" : "-")],
    ]));
    var sum = DATA.summary;
    if (sum) {
      box.appendChild(el("h2", null, "summary.json"));
      var llm = sum.llm || {};
      box.appendChild(table(["", ""], [
        ["messages", sum.messages], ["thoughts", sum.thoughts], ["model calls", llm.calls],
        ["prompt tokens", llm.prompt_tokens], ["completion tokens", llm.completion_tokens],
        ["wall time (s)", sum.wall_time_s],
        ["tasks", Object.keys(sum.tasks_by_status || {}).map(function (k) { return k + " " + sum.tasks_by_status[k]; }).join(", ")],
      ]));
      var by = sum.by_employee || {};
      box.appendChild(table(["employee", "thoughts", "spoke", "silent", "messages", "prompt tokens", "completion tokens"],
        Object.keys(by).map(function (id) {
          var r = by[id];
          return [nameOf(id), r.thoughts, r.spoke, r.silent, r.messages, r.prompt_tokens, r.completion_tokens];
        })));
    } else {
      box.appendChild(el("p", "hint", "No summary.json: the run is still going, or it was killed."));
    }
    box.appendChild(el("h2", null, "Silences by gate"));
    var gates = (DATA.silences && DATA.silences.by_gate) || {};
    box.appendChild(table(["gate", "thoughts", "share of all thoughts"], Object.keys(gates).map(function (g) {
      return [g, gates[g], DATA.silences.rates[g]];
    })));
    box.appendChild(el("h2", null, "Evaluation metrics (docs/evaluation.md)"));
    box.appendChild(table(["metric", "value", "better"], DATA.metrics.map(function (mt) {
      return [mt.label, mt.value, mt.better || ""];
    })));
  }

  // The workspace (issue 20): each document's review thread, its text now, each version's diff.
  function documentsTab() {
    var box = document.getElementById("docs");
    box.textContent = "";
    var docs = DATA.documents || [];
    if (!docs.length) { box.appendChild(el("p", "hint", "No documents in this run's workspace.")); return; }
    docs.forEach(function (d) {
      var review = d.review || {};
      box.appendChild(el("h2", null, d.key));
      box.appendChild(el("p", "hint", "by " + nameOf(d.author) + " · " + d.count + " version(s) · " +
        (review.status ? review.status + ", reviewer " + nameOf(review.reviewer) + ", rejections " + review.round : "not reviewed")));
      box.appendChild(table(["time", "who", "tool", "what it did", "notes"], d.history.map(function (h) {
        return [h.t === null ? "" : clock(h.t), nameOf(h.employee), h.tool, h.status || "", h.notes || h.argument || ""];
      })));
      var last = d.versions[d.versions.length - 1];
      if (!last) return;  // its writing is not in the logs (a line skipped): only its thread
      box.appendChild(el("h5", null, "Version " + last.hash + " (now)"));
      box.appendChild(el("pre", "doc", last.content));
      d.versions.slice(1).forEach(function (v) {
        box.appendChild(el("h5", null, "Changes in version " + v.hash + " by " + nameOf(v.author)));
        box.appendChild(el("pre", "diff", v.diff));
      });
    });
  }

  // ------------------------------------------------------------------ tabs and start

  var drawn = {};
  function tab(name) {
    document.querySelectorAll("#tabs button").forEach(function (bt) { bt.classList.toggle("on", bt.dataset.tab === name); });
    document.querySelectorAll("section.tab").forEach(function (s) { s.hidden = s.id !== name; });
    if (drawn[name]) return;
    drawn[name] = true;
    if (name === "people") { talkGraph(document.getElementById("talk")); staminaChart(); affinityChart(); }
    if (name === "metrics") summaryTab();
    if (name === "documents") documentsTab();
  }
  document.getElementById("tabs").addEventListener("click", function (e) {
    var bt = e.target.closest("button[data-tab]");
    if (bt) tab(bt.dataset.tab);
  });

  var form = document.getElementById("filters");
  form.addEventListener("input", function () { readFilters(); layout(); });
  form.addEventListener("submit", function (e) { e.preventDefault(); });

  readFilters();
  layout();

  // view.html#message=ID opens with that message chosen and its thought shown (a link to a moment).
  var wanted = /^#message=(.+)$/.exec(location.hash);
  if (wanted) {
    var id = decodeURIComponent(wanted[1]);
    var at = DATA.messages.findIndex(function (msg) { return msg.id === id; });
    var item = items.find(function (it) { return it.kind === "msg" && it.i === at; });
    if (item) {
      renderBlock(item.block);
      var card = grid.querySelector('.msg[data-msg="' + at + '"]');
      if (card) { card.classList.add("chosen"); card.scrollIntoView({ block: "center", inline: "nearest" }); }
      showMessage(at);
    }
  }
  window.ideacoView = {
    renderAll: renderAll,
    items: function () { return items.length; },
    state: state,
    readyAt: performance.now(), // ms since navigation began: the page is usable (benchmarks/viewer.py)
  };
  document.body.dataset.ready = "1";
})();
