// ideaco view's Summary & metrics and Documents tabs, drawn on their first view.
(function (page) {
  "use strict";

  var DATA = page.DATA, meta = DATA.meta;
  var el = page.el, nameOf = page.nameOf, clock = page.clock;

  // Values come formatted from ideaco.metrics.units, as `ideaco report` prints them; the columns
  // listed in `figures` are set to the right.
  function table(headers, rows, cls, figures) {
    var t = el("table", cls || null);
    var tr = el("tr");
    headers.forEach(function (h) { tr.appendChild(el("th", null, h)); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var line = el("tr");
      r.forEach(function (v, k) {
        var empty = v === null || v === undefined || v === "";
        line.appendChild(el("td", (figures || []).indexOf(k) >= 0 ? "num" : null, empty ? "-" : v));
      });
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
      ["simulated", clock(0) + " to " + clock(meta.duration)],
      ["state format", meta.format], ["stop reason", meta.stop_reason || (meta.complete ? "reached the end of the simulated time" : "-")],
    ], "run"));
    var sum = DATA.summary_rows;
    if (sum) {
      box.appendChild(el("h2", null, "summary.json"));
      box.appendChild(table(["", ""], sum.totals, "totals", [1]));
      box.appendChild(table(["employee"].concat(sum.columns), Object.keys(sum.employees).map(function (id) {
        return [nameOf(id)].concat(sum.employees[id]);
      }), "by-employee", sum.columns.map(function (_, k) { return k + 1; })));
    } else {
      box.appendChild(el("p", "hint", "No summary.json: the run is still going, or it was killed."));
    }
    box.appendChild(el("h2", null, "Silences by gate"));
    box.appendChild(table(["gate", "thoughts", "share of all thoughts"], DATA.silence_rows || [], "silences", [1, 2]));
    box.appendChild(el("h2", null, "Evaluation metrics (docs/evaluation.md)"));
    box.appendChild(table(["metric", "value", "better"], DATA.metrics.map(function (mt) {
      return [mt.label, mt.text, mt.better || ""];
    }), "metrics", [1]));
  }

  // The workspace (issue 20): each document's review thread, its text now, its first version's
  // text, each later version's diff. Every time is when the step landed, as each version is dated
  // (issue 37). The tab is there only when the run wrote documents (page.py).
  function at(t) { return t === null || t === undefined ? "" : " at " + clock(t, true); }
  function documentsTab() {
    var box = document.getElementById("docs");
    if (!box) return;
    box.textContent = "";
    (DATA.documents || []).forEach(function (d) {
      var review = d.review || {};
      box.appendChild(el("h2", null, d.key));
      box.appendChild(el("p", "hint", "by " + nameOf(d.author) + " · " + d.count + " version(s) · " +
        (review.status ? review.status + ", reviewer " + nameOf(review.reviewer) + ", rejections " + review.round : "not reviewed")));
      box.appendChild(table(["time", "who", "tool", "what it did", "notes"], d.history.map(function (h) {
        return [h.t === null ? "" : clock(h.t, true), nameOf(h.employee), h.tool, h.status || "", h.notes || h.argument || ""];
      }), "history"));
      var last = d.versions[d.versions.length - 1];
      if (!last) return;  // its writing is not in the logs (a line skipped): only its thread
      var first = d.versions[0];
      var now = first === last ? " (now, the first)" : " (now)";
      box.appendChild(el("h5", null, "Version " + last.hash + now + " by " + nameOf(last.author) + at(last.t)));
      box.appendChild(el("pre", "doc now", last.content));
      if (first !== last) {  // the first version whole, not only the minus side of a diff
        var by = " (the first) by " + nameOf(first.author);
        box.appendChild(el("h5", null, "Version " + first.hash + by + at(first.t)));
        box.appendChild(el("pre", "doc first", first.content));
      }
      d.versions.slice(1).forEach(function (v) {
        box.appendChild(el("h5", null, "Changes in version " + v.hash + " by " + nameOf(v.author) + at(v.t)));
        box.appendChild(el("pre", "diff", v.diff));
      });
    });
  }

  page.tabs.metrics = summaryTab;
  page.tabs.documents = documentsTab;
})(ideacoPage);
