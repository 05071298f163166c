// ideaco view: one run directory read in a browser, from file://, with no network. This script is the
// timeline (filters, lanes, the detail panel) and the tabs; common.js, charts.js and tables.js come
// before it. The timeline renders a block of simulated time only when it scrolls near the screen,
// so a long run opens at once.
(function (page) {
  "use strict";

  var DATA = page.DATA, duration = page.duration, base = page.base;
  var el = page.el, nameOf = page.nameOf, roomName = page.roomName, clock = page.clock;
  var asTime = page.asTime, colour = page.colour;
  var RECORDS = null; // the full thought records, parsed on the first click
  function records() {
    if (RECORDS === null) RECORDS = JSON.parse(document.getElementById("ideaco-records").textContent);
    return RECORDS;
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
    (meta.applied ? "" : " · format " + meta.format + ": no applied changes logged") +
    (meta.fork ? " · " + meta.fork : "");

  // ------------------------------------------------------------------ items and blocks

  // One item per message, one per line of work (what `ideaco run` prints with ✎: a document written,
  // a review asked or given, ...) and one per silent thought (a spoken one shows as its messages).
  // At one moment a thought's messages (or its silence) come first, then its work, as the terminal
  // prints them.
  var WORK = DATA.work_lines || [];
  // A silence shows when its thought landed, as the terminal prints it and as its work lines are.
  function landedAt(th) { return (th.landed === null || th.landed === undefined ? th.t : th.landed) || 0; }
  var ORDER = { msg: 0, sil: 1, work: 2 };
  var items = [];
  DATA.messages.forEach(function (msg, i) {
    items.push({ kind: "msg", i: i, t: msg.t || 0, conv: msg.conv, who: msg.sender });
  });
  WORK.forEach(function (w, i) {
    items.push({ kind: "work", i: i, t: w.t || 0, conv: w.conv, who: w.emp });
  });
  DATA.thoughts.forEach(function (th, i) {
    if (th.spoke) return;
    items.push({ kind: "sil", i: i, t: landedAt(th), conv: th.conv, who: th.emp, gate: th.gate });
  });
  items.sort(function (a, b) { return a.t - b.t || ORDER[a.kind] - ORDER[b.kind] || a.i - b.i; });
  // Cards line up by time: a block of time has one row per clock minute with something in it.
  items.forEach(function (it) { it.minute = Math.floor((base + it.t) / 60); });

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
  if (!WORK.length) {  // a run that did no work: the filter offers none
    show.querySelector('option[value="work"]').remove();
    show.querySelector('option[value="all"]').textContent = "messages and silences";
  }
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
    if (state.show === "work") return it.kind === "work";
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

  // The rooms fit the lanes, or the lanes scroll sideways by whole columns (scroll snapping) with
  // the time column and the room names fixed: a column is either wholly in view or out of it.
  var GUTTER_EM = 6, COLUMN_EM = 15, NARROWEST_PX = 120;
  var lanes = document.getElementById("lanes");
  var head = document.getElementById("grid-head");
  var grid = document.getElementById("grid");
  var columns = [];
  var columnOf = new Map();
  var blocks = [];
  var fitted = { gutter: 84, width: 210, inView: 1 };
  var observer = "IntersectionObserver" in window
    ? new IntersectionObserver(function (entries) {
      entries.forEach(function (e) { if (e.isIntersecting) renderBlock(+e.target.dataset.block); });
    }, { root: lanes, rootMargin: "1200px 0px" })
    : null;

  function fit() {
    var n = Math.max(columns.length, 1);
    var em = parseFloat(getComputedStyle(lanes).fontSize) || 14;
    var room = lanes.clientWidth - Math.ceil(GUTTER_EM * em);
    var inView = Math.max(1, Math.min(n, Math.floor(room / Math.ceil(COLUMN_EM * em))));
    var width = Math.max(NARROWEST_PX, Math.floor(room / inView));
    // The time column takes the pixels left over, so the last room in view ends at the lanes' edge.
    var gutter = Math.max(Math.ceil(GUTTER_EM * em), lanes.clientWidth - inView * width);
    fitted = { gutter: gutter, width: width, inView: inView };
    lanes.style.setProperty("--gutter", gutter + "px");
    lanes.style.setProperty("--col", width + "px");
    lanes.style.setProperty("--n", String(n));
    lanes.classList.toggle("scrolls", inView < n);
  }
  if ("ResizeObserver" in window) new ResizeObserver(fit).observe(lanes);
  else window.addEventListener("resize", fit);

  function layout() {
    columns = DATA.rooms.filter(function (r) { return !state.hidden.has(r.id); });
    columnOf = new Map(columns.map(function (r, k) { return [r.id, k]; }));
    fit();
    head.textContent = "";
    head.appendChild(el("div", "gutter corner", "time"));
    columns.forEach(function (r) {
      var h = el("div", "room-head");
      h.appendChild(el("span", "room-name", r.name));
      h.appendChild(el("span", "room-kind", r.kind));
      h.title = r.name + " (" + r.id + ")" + (r.members.length ? ": " + r.members.map(nameOf).join(", ") : "");
      head.appendChild(h);
    });
    var shown = { msg: 0, work: 0, sil: 0 };
    items.forEach(function (it) {
      it.shown = visible(it) && columnOf.has(it.conv);
      if (it.shown) shown[it.kind]++;
    });
    document.getElementById("shown").textContent =
      shown.msg + " of " + DATA.messages.length + " messages, " +
      (WORK.length ? shown.work + " of " + WORK.length + " work lines, " : "") +
      shown.sil + " of " + silentN + " silences shown";
    if (observer) observer.disconnect(); // the old blocks go: stop watching them
    grid.textContent = "";
    blocks = [];
    for (var b = 0; b < nBlocks; b++) {
      var div = el("div", "block");
      div.dataset.block = String(b);
      var rows = rowsOf(b);
      // Until it is drawn, a block holds about the height its rows will take.
      var tall = rows.reduce(function (sum, row) {
        var most = 0;
        row.cells.forEach(function (list) {
          most = Math.max(most, list.reduce(function (h, it) { return h + (it.kind === "msg" ? 3.6 : 1.4); }, 0));
        });
        return sum + most + 0.3;
      }, 0);
      div.style.minHeight = (rows.length ? Math.max(2, tall + 0.8) : 1.6) + "em";
      if (!rows.length) div.classList.add("empty");
      grid.appendChild(div);
      blocks.push({ el: div, rendered: false });
      if (observer) observer.observe(div);
    }
    if (!observer) renderAll();
  }

  function rowsOf(b) {
    var rows = [], byMinute = new Map();
    byBlock[b].forEach(function (it) {
      if (!it.shown) return;
      var row = byMinute.get(it.minute);
      if (!row) {
        row = { minute: it.minute, cells: new Map() };
        byMinute.set(it.minute, row);
        rows.push(row);
      }
      if (!row.cells.has(it.conv)) row.cells.set(it.conv, []);
      row.cells.get(it.conv).push(it);
    });
    return rows;
  }

  function place(node, row, column) {
    node.style.gridRow = String(row + 1);
    node.style.gridColumn = String(column + 1);
    return node;
  }

  function renderBlock(b) {
    var block = blocks[b];
    if (!block || block.rendered) return;
    block.rendered = true;
    var div = block.el;
    div.style.minHeight = "";
    var rows = rowsOf(b);
    if (!rows.length) { div.appendChild(place(el("div", "gutter", clock(b * blockSize)), 0, 0)); return; }
    rows.forEach(function (row, r) {
      div.appendChild(place(el("div", "gutter", clock(row.minute * 60 - base)), r, 0));
      row.cells.forEach(function (list, conv) {
        var cell = place(el("div", "cell"), r, columnOf.get(conv) + 1);
        cell.dataset.col = String(columnOf.get(conv));
        list.forEach(function (it) {
          var draw = { msg: messageCard, work: workMark, sil: silenceMark }[it.kind];
          cell.appendChild(draw(it.i));
        });
        div.appendChild(cell);
      });
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
    card.dataset.t = String(msg.t || 0);
    var top = el("div", "msg-top");
    top.appendChild(el("span", "time", clock(msg.t, true)));
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
    mark.dataset.t = String(landedAt(th));
    var why = (th.held && th.held.rule ? th.held.gate + ": " + th.held.rule : th.gate) || "silent";
    mark.appendChild(el("span", "time", clock(landedAt(th), true)));
    mark.appendChild(el("span", "sil-who", nameOf(th.emp)));
    mark.appendChild(el("span", "sil-gate", why));
    mark.title = nameOf(th.emp) + " kept quiet (" + why + ")" + (th.reason ? ": " + th.reason : "");
    return mark;
  }

  // A line of work, as the terminal prints it: `09:01:21 ✎ Bob wrote docs/api.md (version c0b0c9a4)`.
  function workMark(i) {
    var w = WORK[i];
    var mark = el("div", "work");
    mark.tabIndex = 0;
    mark.dataset.work = String(i);
    mark.dataset.thought = String(w.thought);
    mark.dataset.tool = w.tool;
    mark.dataset.sender = w.emp;
    mark.dataset.conv = w.conv;
    mark.dataset.t = String(w.t || 0);
    mark.appendChild(el("span", "time", clock(w.t, true)));
    mark.appendChild(el("span", "work-sign", "✎"));
    var who = el("span", "work-who", nameOf(w.emp));
    who.style.color = colour(w.emp);
    mark.appendChild(who);
    mark.appendChild(el("span", "work-what", w.text));
    mark.title = nameOf(w.emp) + " " + w.text;
    return mark;
  }

  // Bring a card wholly into view: sideways by whole columns, then up or down below the room names.
  function reveal(card) {
    var cell = card.closest(".cell");
    if (!cell) return;
    var k = +cell.dataset.col, w = fitted.width;
    var first = Math.round(lanes.scrollLeft / w);
    if (k < first) lanes.scrollLeft = k * w;
    else if (k > first + fitted.inView - 1) lanes.scrollLeft = (k - fitted.inView + 1) * w;
    var box = card.getBoundingClientRect(), view = lanes.getBoundingClientRect();
    var top = view.top + head.offsetHeight + 6, bottom = view.top + lanes.clientHeight - 6;
    if (box.top < top) lanes.scrollTop -= top - box.top;
    else if (box.bottom > bottom) lanes.scrollTop += Math.min(box.bottom - bottom, box.top - top);
  }

  // ------------------------------------------------------------------ the detail panel

  // The panel is a column of the timeline beside the lanes, never over them: opening it narrows
  // the lanes, which fit their columns again, and the chosen card is brought into view.
  var panel = document.getElementById("detail");
  var body = document.getElementById("detail-body");

  function row(dl, key, value) {
    if (value === undefined || value === null || value === "") return;
    dl.appendChild(el("dt", null, key));
    dl.appendChild(el("dd", null, asTime(value)));
  }

  function showMessage(i, card) {
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
      showThought(msg.thought, null, true);
    } else {
      body.appendChild(el("p", "hint", msg.sender === "boss" ? "The boss's line: no thought behind it."
        : msg.sender === "system" ? "Posted by the engine." : "No logged thought posted this message."));
    }
    open(card);
  }

  function showThought(i, card, below, heading) {
    var th = DATA.thoughts[i];
    if (!below) {
      body.textContent = "";
      body.appendChild(el("h3", null, heading || nameOf(th.emp) + " kept quiet in " + roomName(th.conv)));
    }
    var section = el("section", "thought");
    section.appendChild(el("h4", null, "The thought behind it"));
    var dl = el("dl");
    row(dl, "thought", th.id + " at " + clock(th.t, true) +
      (landedAt(th) !== (th.t || 0) ? ", landed " + clock(landedAt(th), true) : ""));
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
    if (rec.next_look_at) section.appendChild(el("p", "hint", "next look at " + asTime(rec.next_look_at)));
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
    if (!below) open(card);
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
        if (k !== "step" && typeof s[k] !== "object") parts.push(k + "=" + asTime(s[k]));
      });
    }
    return parts.join(" ");
  }

  function open(card) {
    panel.hidden = false;
    panel.scrollTop = 0;
    fit();
    if (card) reveal(card);
  }
  document.getElementById("detail-close").addEventListener("click", function () { panel.hidden = true; fit(); });

  grid.addEventListener("click", function (e) {
    var target = e.target.closest(".msg, .sil, .work");
    if (!target) return;
    grid.querySelectorAll(".chosen").forEach(function (c) { c.classList.remove("chosen"); });
    target.classList.add("chosen");
    if (target.dataset.msg !== undefined) showMessage(+target.dataset.msg, target);
    else if (target.dataset.work !== undefined) {
      var w = WORK[+target.dataset.work];
      var heading = "✎ " + nameOf(w.emp) + " " + w.text + " in " + roomName(w.conv);
      showThought(w.thought, target, false, heading);
    } else showThought(+target.dataset.thought, target, false);
  });
  grid.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && e.target.closest(".msg, .sil, .work")) e.target.click();
  });

  // ------------------------------------------------------------------ tabs and start

  var drawn = {};
  function tab(name) {
    document.querySelectorAll("#tabs button").forEach(function (bt) { bt.classList.toggle("on", bt.dataset.tab === name); });
    document.querySelectorAll("section.tab").forEach(function (s) { s.hidden = s.id !== name; });
    if (name === "timeline") fit();
    if (drawn[name]) return;
    drawn[name] = true;
    if (page.tabs[name]) page.tabs[name]();
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
      if (card) card.classList.add("chosen");
      showMessage(at, card);
    }
  }
  window.ideacoView = {
    renderAll: renderAll,
    items: function () { return items.length; },
    state: state,
    palette: page.PALETTE.slice(),
    colour: colour,
    readyAt: performance.now(), // ms since navigation began: the page is usable (benchmarks/viewer.py)
  };
  document.body.dataset.ready = "1";
})(ideacoPage);
