// analytics.js draws the analytics pages' charts with Chart.js
// (chart.umd.min.js, loaded before it) from the JSON the page carries in
// #analytics-data: a list of {id, kind, label, labels, values}. "line" is
// a count per day, "bar" a top list (horizontal bars). A drawn canvas gets
// data-drawn="true", for tests and styles.
(function () {
  "use strict";
  var source = document.getElementById("analytics-data");
  if (!source || typeof Chart === "undefined") {
    return;
  }
  var charts = JSON.parse(source.textContent) || [];
  var blue = "#0969da";
  charts.forEach(function (c) {
    var canvas = document.getElementById(c.id);
    if (!canvas) {
      return;
    }
    var line = c.kind === "line";
    if (!line) {
      // A bar per entry, whatever their number.
      canvas.parentNode.style.height = (48 + 28 * (c.labels || []).length) + "px";
    }
    new Chart(canvas, {
      type: line ? "line" : "bar",
      data: {
        labels: c.labels || [],
        datasets: [{
          label: c.label,
          data: c.values || [],
          borderColor: blue,
          backgroundColor: line ? "rgba(9, 105, 218, 0.15)" : blue,
          fill: line,
          tension: 0,
          pointRadius: line ? 2 : 0
        }]
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        indexAxis: line ? "x" : "y",
        plugins: { legend: { display: false } },
        scales: line
          ? { y: { beginAtZero: true, ticks: { precision: 0 } } }
          : { x: { beginAtZero: true, ticks: { precision: 0 } } }
      }
    });
    canvas.setAttribute("data-drawn", "true");
  });
})();
