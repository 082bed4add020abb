// tactful moderator console: plain JavaScript, no dependencies, nothing fetched from elsewhere.
// Every text is put in the page with textContent / text nodes, never as HTML.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const SPAN_LABELS = ["insult", "threat", "identity_attack", "profanity", "other", "toxic"];
  const PROGRESS_DELAY_MS = 1000; // the indicator appears for work that takes longer
  const state = { info: null, models: [] };

  // ---------------------------------------------------------------- requests
  function headers(extra) {
    const h = Object.assign({}, extra || {});
    const key = sessionStorage.getItem("tactful.key");
    if (key) h["Authorization"] = "Bearer " + key;
    return h;
  }

  async function api(path, options) {
    const opts = Object.assign({}, options || {});
    opts.headers = headers(opts.headers);
    const resp = await fetch(path, opts);
    const body = await resp.text();
    let data = null;
    try { data = body ? JSON.parse(body) : null; } catch (e) { data = null; }
    if (!resp.ok) {
      if (resp.status === 401) $("key-box").hidden = false;
      const message = data && data.error ? data.error.message : resp.status + " " + resp.statusText;
      throw new Error(message);
    }
    return data;
  }

  function showError(err) {
    const box = $("error");
    if (!err) { box.hidden = true; box.textContent = ""; return; }
    box.textContent = String(err.message || err);
    box.hidden = false;
  }

  // A progress indicator that shows only once the work has taken PROGRESS_DELAY_MS.
  function startProgress(label) {
    const box = $("progress"), bar = $("progress-bar"), text = $("progress-text");
    bar.removeAttribute("value");
    text.textContent = label;
    const timer = setTimeout(() => { box.hidden = false; }, PROGRESS_DELAY_MS);
    return {
      update(done, total, what) {
        if (total > 0) { bar.max = total; bar.value = done; }
        text.textContent = what;
      },
      stop() { clearTimeout(timer); box.hidden = true; },
    };
  }

  // ---------------------------------------------------------------- rendering
  function fmt(x) { return x === null || x === undefined ? "—" : Number(x).toFixed(2); }

  // Spans are code-point offsets into the text (Python str indices): index the
  // text by code points, not UTF-16 units, so that emoji do not shift them.
  function renderText(cell, text, spans) {
    const cps = Array.from(text);
    let pos = 0;
    const sorted = (spans || []).slice().sort((a, b) => a.start - b.start);
    for (const s of sorted) {
      if (s.start < pos || s.end > cps.length) continue;
      if (s.start > pos) cell.appendChild(document.createTextNode(cps.slice(pos, s.start).join("")));
      const mark = document.createElement("mark");
      const label = SPAN_LABELS.includes(s.label) ? s.label : "other";
      mark.className = "span span-" + label;
      mark.dataset.start = String(s.start);
      mark.dataset.end = String(s.end);
      mark.dataset.label = s.label;
      mark.title = s.label + " " + fmt(s.score);
      mark.textContent = cps.slice(s.start, s.end).join("");
      cell.appendChild(mark);
      pos = s.end;
    }
    if (pos < cps.length) cell.appendChild(document.createTextNode(cps.slice(pos).join("")));
  }

  function td(cls, text) {
    const cell = document.createElement("td");
    if (cls) cell.className = cls;
    if (text !== undefined) cell.textContent = text;
    return cell;
  }

  function verdictCell(flagged) {
    const cell = td("verdict " + (flagged ? "flagged" : "ok"), flagged ? "FLAGGED" : "ok");
    return cell;
  }

  function headCell(score, flag) {
    const cell = td("num", fmt(score));
    if (flag) {
      const b = document.createElement("span");
      b.className = "badge";
      b.textContent = "flag";
      cell.appendChild(b);
    }
    return cell;
  }

  function scoresText(scores, flags) {
    const entries = Object.entries(scores || {}).sort((a, b) => b[1] - a[1]);
    const top = entries.filter(([k]) => k === "toxicity");
    for (const e of entries) if (e[0] !== "toxicity" && e[1] > 0 && top.length < 3) top.push(e);
    const parts = top.map(([k, v]) => k + " " + fmt(v));
    // a model with harm-category heads: the categories it flags
    const cats = ((state.info && state.info.harm_categories) || []).filter((c) => flags && flags[c]);
    if (cats.length) parts.push("harm: " + cats.join(", "));
    return parts.join(" · ");
  }

  function renderResults(items, startIndex) {
    const body = $("results").querySelector("tbody");
    if (!startIndex) body.replaceChildren();
    items.forEach((item, i) => {
      const a = item.analysis;
      const row = document.createElement("tr");
      row.dataset.itemId = String(item.id);
      row.appendChild(td("num", String((startIndex || 0) + i + 1)));
      const text = td("text");
      renderText(text, item.text, a.spans);
      row.appendChild(text);
      row.appendChild(verdictCell(a.flagged));
      row.appendChild(td("scores", scoresText(a.scores, a.flags)));
      row.appendChild(headCell(a.jailbreak, a.flags && a.flags.jailbreak));
      row.appendChild(headCell(a.delicate, a.flags && a.flags.delicate));
      body.appendChild(row);
    });
  }

  // ---------------------------------------------------------------- analyze
  function model() { return $("model").value || undefined; }

  // Runs work(progress) with the button disabled and a progress indicator, then
  // shows the analyses it returns; an error is shown, never thrown.
  async function analyzeWith(btn, label, work) {
    btn.disabled = true;
    const progress = startProgress(label);
    try {
      renderResults(await work(progress), 0);
      refreshQueueCount();
    } catch (err) {
      showError(err);
    } finally {
      progress.stop();
      btn.disabled = false;
    }
  }

  async function analyzePasted(ev) {
    ev.preventDefault();
    showError(null);
    const texts = $("texts").value.split(/\r?\n/).filter((t) => t.trim() !== "");
    if (!texts.length) { showError("Paste at least one text."); return; }
    await analyzeWith($("analyze-btn"), "analyzing " + texts.length + " text(s)…", async () => {
      const data = await api("/console/api/analyze", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ input: texts, model: model() }),
      });
      return data.items;
    });
  }

  function uploadFile(file, progress) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      const q = new URLSearchParams({ name: file.name });
      if (model()) q.set("model", model());
      xhr.open("POST", "/console/api/jobs?" + q.toString());
      const h = headers({ "Content-Type": file.type || "application/octet-stream" });
      for (const [k, v] of Object.entries(h)) xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) progress.update(e.loaded, e.total, "uploading " + file.name + "…");
      };
      xhr.onload = () => {
        let data = null;
        try { data = JSON.parse(xhr.responseText); } catch (e) { data = null; }
        if (xhr.status >= 200 && xhr.status < 300) resolve(data);
        else {
          if (xhr.status === 401) $("key-box").hidden = false;
          reject(new Error(data && data.error ? data.error.message : "upload failed: " + xhr.status));
        }
      };
      xhr.onerror = () => reject(new Error("The upload did not reach the server."));
      xhr.send(file);
    });
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  async function uploadSubmitted(ev) {
    ev.preventDefault();
    showError(null);
    const file = $("file").files[0];
    if (!file) { showError("Choose a CSV or JSONL file first."); return; }
    await analyzeWith($("upload-btn"), "uploading " + file.name + "…", async (progress) => {
      let job = await uploadFile(file, progress);
      while (job.status === "running") {
        progress.update(job.done, job.total, "analyzed " + job.done + " of " + job.total + " texts");
        await sleep(250);
        job = await api("/console/api/jobs/" + job.id);
      }
      if (job.status !== "done") throw new Error(job.error || "The upload " + job.status + ".");
      progress.update(job.total, job.total, "analyzed " + job.total + " texts");
      const items = [];
      for (let offset = 0; offset < job.total; offset += 500) {
        const page = await api("/console/api/jobs/" + job.id + "/items?offset=" + offset + "&limit=500");
        items.push(...page.items);
        if (page.items.length < 500) break;
      }
      return items;
    });
  }

  // ---------------------------------------------------------------- review queue
  async function refreshQueueCount() {
    try {
      const q = new URLSearchParams({ limit: "1000" });
      if (model()) q.set("model", model());
      const data = await api("/console/api/queue?" + q.toString());
      $("queue-count").textContent = data.items.length ? String(data.items.length) : "";
    } catch (err) { /* the count is a hint only */ }
  }

  function labelButton(item, label) {
    const modelSays = item.analysis.flagged ? "toxic" : "not_toxic";
    const accept = label === modelSays;
    const btn = document.createElement("button");
    btn.type = "button";
    btn.className = accept ? "accept" : "override";
    btn.dataset.label = label;
    btn.textContent = (accept ? "Accept: " : "Override: ") + label.replace("_", " ");
    btn.addEventListener("click", () => saveLabel(item, label, btn));
    return btn;
  }

  async function loadQueue() {
    showError(null);
    const q = new URLSearchParams({ limit: "50" });
    if (model()) q.set("model", model());
    try {
      const data = await api("/console/api/queue?" + q.toString());
      const body = $("queue").querySelector("tbody");
      body.replaceChildren();
      for (const item of data.items) {
        const row = document.createElement("tr");
        row.dataset.itemId = String(item.id);
        const text = td("text");
        renderText(text, item.text, item.analysis.spans);
        row.appendChild(text);
        const says = td("num");
        says.appendChild(verdictCell(item.analysis.flagged).firstChild);
        says.appendChild(document.createTextNode(
          " " + (item.score === null ? "" : item.score.toFixed(3) + " vs " + item.threshold.toFixed(3))));
        row.appendChild(says);
        const act = td();
        const box = document.createElement("div");
        box.className = "actions";
        const first = item.analysis.flagged ? "toxic" : "not_toxic";
        box.appendChild(labelButton(item, first));
        box.appendChild(labelButton(item, first === "toxic" ? "not_toxic" : "toxic"));
        act.appendChild(box);
        row.appendChild(act);
        body.appendChild(row);
      }
      $("queue-empty").hidden = data.items.length > 0;
      $("queue-count").textContent = data.items.length ? String(data.items.length) : "";
    } catch (err) { showError(err); }
  }

  async function saveLabel(item, label, btn) {
    showError(null);
    const who = $("who").value.trim();
    btn.disabled = true;
    try {
      await api("/console/api/labels", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ item_id: item.id, label: label, who: who || null }),
      });
      const row = $("queue").querySelector('tr[data-item-id="' + item.id + '"]');
      if (row) row.remove();
      const left = $("queue").querySelectorAll("tbody tr").length;
      $("queue-empty").hidden = left > 0;
      $("queue-count").textContent = left ? String(left) : "";
    } catch (err) {
      showError(err);
      btn.disabled = false;
    }
  }

  // ---------------------------------------------------------------- labels
  async function loadLabels() {
    showError(null);
    try {
      const data = await api("/console/api/labels");
      const body = $("labels").querySelector("tbody");
      body.replaceChildren();
      for (const l of data.labels.slice().reverse()) {
        const row = document.createElement("tr");
        row.dataset.itemId = String(l.item_id);
        row.appendChild(td("num", l.at.replace("T", " ").replace("Z", "")));
        row.appendChild(td("who", l.who));
        row.appendChild(td("text", l.text));
        row.appendChild(td("", l.model_flagged ? "toxic" : "not toxic"));
        row.appendChild(td("label", l.label.replace("_", " ")));
        row.appendChild(td("decision", l.decision));
        body.appendChild(row);
      }
    } catch (err) { showError(err); }
  }

  async function download(path, name) {
    showError(null);
    try {
      const resp = await fetch(path, { headers: headers() });
      if (!resp.ok) throw new Error("export failed: " + resp.status);
      const url = URL.createObjectURL(await resp.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = name;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (err) { showError(err); }
  }

  // ---------------------------------------------------------------- tabs and start
  function selectTab(name) {
    for (const btn of document.querySelectorAll("nav [role=tab]")) {
      const on = btn.dataset.tab === name;
      btn.setAttribute("aria-selected", on ? "true" : "false");
      $("tab-" + btn.dataset.tab).hidden = !on;
    }
    if (name === "review") loadQueue();
    if (name === "labels") loadLabels();
  }

  async function loadInfo() {
    try {
      state.info = await api("/console/api/info");
      showError(null);
      const select = $("model");
      select.replaceChildren();
      for (const m of state.info.models) {
        const opt = document.createElement("option");
        opt.value = m.id;
        opt.textContent = m.id + (m.version ? " " + m.version : "");
        select.appendChild(opt);
      }
      if (!state.info.ready) setTimeout(loadInfo, 2000);
      refreshQueueCount();
    } catch (err) { showError(err); }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("who").value = localStorage.getItem("tactful.who") || "";
    $("who").addEventListener("change", () => localStorage.setItem("tactful.who", $("who").value.trim()));
    $("api-key").value = sessionStorage.getItem("tactful.key") || "";
    $("api-key").addEventListener("change", () => {
      sessionStorage.setItem("tactful.key", $("api-key").value.trim());
      loadInfo();
    });
    for (const btn of document.querySelectorAll("nav [role=tab]")) {
      btn.addEventListener("click", () => selectTab(btn.dataset.tab));
    }
    $("model").addEventListener("change", refreshQueueCount);
    $("paste-form").addEventListener("submit", analyzePasted);
    $("upload-form").addEventListener("submit", uploadSubmitted);
    $("export-csv").addEventListener("click", () => download("/console/api/labels.csv", "labels.csv"));
    $("export-jsonl").addEventListener("click", () => download("/console/api/labels.jsonl", "labels.jsonl"));
    loadInfo();
  });
})();
