// ideaco view, shared by the page's scripts (this one first, view.js last): the run's data, and how
// a name, a moment and a person's colour read. Every string from the run (agent text, names, ids)
// reaches the page through textContent or an SVG <title>'s textContent, never as markup.
var ideacoPage = (function () {
  "use strict";

  var DATA = JSON.parse(document.getElementById("ideaco-data").textContent);
  var people = new Map(DATA.people.map(function (p) { return [p.id, p]; }));
  var roomsById = new Map(DATA.rooms.map(function (r) { return [r.id, r]; }));
  var duration = Math.max(DATA.meta.duration || 0, 60);

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
  function isoSeconds(iso) { // seconds since 1970 of a naive ISO time, as written (no zone)
    var d = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d(?:\.\d+)?)/.exec(iso || "");
    return d ? Date.UTC(+d[1], +d[2] - 1, +d[3], +d[4], +d[5]) / 1000 + parseFloat(d[6]) : null;
  }
  var startAt = isoSeconds(DATA.meta.start) || 0;
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
  // A moment the records hold as ISO text (next_look_at, reopens_at, ...), shown as a clock time;
  // so is one written inside a sentence (a gate's detail: "closed to agent posts until 2026-...").
  var ISO_IN_TEXT = /\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?/g;
  function asTime(value) {
    if (typeof value !== "string") return value;
    return value.replace(ISO_IN_TEXT, function (iso) { return clock(isoSeconds(iso) - startAt, true); });
  }

  // Colours told apart (issue 29): the boss red, everyone else one of 12 qualitative colours in
  // the order of the people list, so no two of the first 12 share one (CIE76 distance >= 36,
  // each readable as text on white).
  var PALETTE = ["#0d5e8c", "#2ca02c", "#800080", "#a6761d", "#cc79a7", "#3a5fcd",
    "#222222", "#556b2f", "#e7298a", "#008b8b", "#8c564b", "#e6550d"];
  var FIXED = { boss: "#b02a2a", system: "#6b7280" };
  var palette = new Map();
  function colour(id) {
    if (FIXED[id]) return FIXED[id];
    if (!palette.has(id)) palette.set(id, PALETTE[palette.size % PALETTE.length]);
    return palette.get(id);
  }
  DATA.people.forEach(function (p) { colour(p.id); });

  return {
    DATA: DATA, duration: duration, base: base, PALETTE: PALETTE,
    el: el, svg: svg, nameOf: nameOf, roomName: roomName, clock: clock, asTime: asTime, colour: colour,
    tabs: {}, // a tab's drawing, by name, each registered by its script (charts.js, tables.js)
  };
})();
