// ideaco view's People tab, drawn on its first view: who talks to whom, comfort and affinity over time.
(function (page) {
  "use strict";

  var DATA = page.DATA, duration = page.duration, base = page.base;
  var el = page.el, svg = page.svg, nameOf = page.nameOf, clock = page.clock, colour = page.colour;

  // Time ticks at round clock times: the smallest step that gives at most 8 labels.
  var STEPS = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
  function timeTicks() {
    var step = STEPS.find(function (s) { return duration / s <= 8; }) || 86400 * Math.ceil(duration / 86400 / 8);
    var out = [];
    for (var t = Math.ceil(base / step) * step - base; t <= duration + 1e-6; t += step) out.push(t);
    return out;
  }

  function clip(text, n) { text = String(text); return text.length > n ? text.slice(0, n - 1) + "…" : text; }

  // A line per series over the run's time: y ticks at the left, clock times along the bottom
  // axis, the axis title above the plot (clear of the ticks), the key at the right.
  function lineChart(holder, series, yMax, yLabel) {
    holder.textContent = "";
    if (!series.length) { holder.appendChild(el("p", "hint", "Nothing to draw for this run.")); return; }
    var W = 760, PAD = { l: 44, r: 170, t: 28, b: 34 };
    var H = Math.max(260, PAD.t + 16 * series.length + PAD.b);
    var s = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img" });
    var x = function (t) { return PAD.l + (W - PAD.l - PAD.r) * Math.min(t, duration) / duration; };
    var y = function (v) { return H - PAD.b - (H - PAD.t - PAD.b) * v / yMax; };
    [0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
      s.appendChild(svg("line", { x1: PAD.l, x2: W - PAD.r, y1: y(f * yMax), y2: y(f * yMax), class: "rule" }));
      var lab = svg("text", { x: PAD.l - 6, y: y(f * yMax) + 4, "text-anchor": "end", class: "tick" });
      lab.textContent = String(Math.round(f * yMax));
      s.appendChild(lab);
    });
    s.appendChild(svg("line", { x1: PAD.l, x2: W - PAD.r, y1: H - PAD.b, y2: H - PAD.b, class: "axis" }));
    timeTicks().forEach(function (t) {
      s.appendChild(svg("line", { x1: x(t), x2: x(t), y1: H - PAD.b, y2: H - PAD.b + 4, class: "axis" }));
      var lab = svg("text", { x: x(t), y: H - PAD.b + 16, "text-anchor": "middle", class: "tick x-tick" });
      lab.textContent = clock(t);
      s.appendChild(lab);
    });
    var yl = svg("text", { x: PAD.l, y: PAD.t - 12, "text-anchor": "start", class: "tick axis-title" });
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
      var ky = PAD.t + 4 + k * 16;
      s.appendChild(svg("line", { x1: W - PAD.r + 10, x2: W - PAD.r + 24, y1: ky - 4, y2: ky - 4, stroke: line.colour, "stroke-width": 3 }));
      var key = svg("text", { x: W - PAD.r + 30, y: ky, fill: line.colour, class: "key" });
      key.textContent = clip(line.name, 22);
      var full = svg("title");
      full.textContent = line.name;
      key.appendChild(full);
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
      label.textContent = clip(nameOf(id), 22);
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
    lineChart(document.getElementById("stamina"), series, 100, "comfort (0-100)");
  }

  var affWho = document.getElementById("aff-who");
  function affinityChart() {
    var mine = DATA.affinity[affWho.value] || {};
    var series = Object.keys(mine).map(function (other) {
      return { name: nameOf(other), colour: colour(other), points: mine[other] };
    });
    lineChart(document.getElementById("affinity"), series, 100, "affinity (1-100)");
  }
  Object.keys(DATA.affinity || {}).forEach(function (id) {
    var o = el("option", null, nameOf(id));
    o.value = id;
    affWho.appendChild(o);
  });
  affWho.addEventListener("change", affinityChart);

  page.tabs.people = function () { talkGraph(document.getElementById("talk")); staminaChart(); affinityChart(); };
})(ideacoPage);
