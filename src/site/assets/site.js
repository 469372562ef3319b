// OpenRecipes site: sorting by column header, filters kept in the address, and a link to a folded section (the
// recipe page's recipe.yaml) unfolding it. The pages read fully without this script (tables come pre-sorted by rank,
// a folded section opens by its summary); it only adds these three things. No inline script anywhere: the
// pages' Content-Security-Policy allows scripts from the site itself only.
'use strict';

(function () {
  function cellKey(row, index, numeric) {
    var cell = row.cells[index];
    if (!cell) return numeric ? null : '';
    if (numeric) {
      var v = cell.getAttribute('data-value');
      return v === null || v === '' ? null : parseFloat(v);
    }
    return cell.textContent.trim();
  }

  function sortTable(table, th) {
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute('data-sort') === 'num';
    var ascending = th.getAttribute('aria-sort') !== 'ascending';
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellKey(a, index, numeric), y = cellKey(b, index, numeric);
      if (x === null && y === null) return 0;
      if (x === null) return 1;  // empty cells last in either direction
      if (y === null) return -1;
      var d = numeric ? x - y : x.localeCompare(y);
      return ascending ? d : -d;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
  }

  function makeSortable(table) {
    Array.prototype.forEach.call(table.querySelectorAll('thead th[data-sort]'), function (th) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener('click', function () { sortTable(table, th); });
    });
  }

  function readFilters(form) {
    return {
      framework: form.elements.framework.value,
      gpus: form.elements.gpus.value,
      verified: form.elements.verified.checked,
    };
  }

  function applyFilters(form) {
    var f = readFilters(form);
    var shown = 0, total = 0;
    function keeps(tr) {
      return (!f.framework || tr.getAttribute('data-framework') === f.framework) &&
             (!f.gpus || tr.getAttribute('data-gpus') === f.gpus) &&
             (!f.verified || tr.getAttribute('data-verified') === '1');
    }
    // The ranked tables: every recipe the filters keep; an empty-state row when none is left.
    Array.prototype.forEach.call(document.querySelectorAll('table.ranked'), function (table) {
      var left = 0;
      Array.prototype.forEach.call(table.querySelectorAll('tbody tr[data-recipe]'), function (tr) {
        var ok = keeps(tr);
        tr.hidden = !ok;
        total += 1;
        if (ok) { shown += 1; left += 1; }
      });
      var empty = table.querySelector('tbody tr.empty');
      if (empty) empty.hidden = left > 0;
    });
    // The GPU-type comparison: per GPU type, the first (fastest) recipe the filters keep.
    Array.prototype.forEach.call(document.querySelectorAll('table.compare'), function (table) {
      var seen = {}, left = 0;
      Array.prototype.forEach.call(table.querySelectorAll('tbody tr[data-recipe]'), function (tr) {
        var group = tr.getAttribute('data-group');
        var ok = keeps(tr) && !seen[group];
        if (ok) { seen[group] = true; left += 1; }
        tr.hidden = !ok;
      });
      var empty = table.querySelector('tbody tr.empty');
      if (empty) empty.hidden = left > 0;
    });
    var status = document.getElementById('filter-status');
    if (status) status.textContent = 'showing ' + shown + ' of ' + total + ' recipes';
  }

  function filtersToUrl(form) {
    var f = readFilters(form);
    var params = new URLSearchParams(window.location.search);
    ['framework', 'gpus', 'verified'].forEach(function (k) { params.delete(k); });
    if (f.framework) params.set('framework', f.framework);
    if (f.gpus) params.set('gpus', f.gpus);
    if (f.verified) params.set('verified', '1');
    var query = params.toString();
    history.replaceState(null, '', window.location.pathname + (query ? '?' + query : '') + window.location.hash);
  }

  // A value from the URL that no recipe has is still the filter (it shows none), never silently dropped.
  function chooseOption(select, value) {
    if (value === null || value === '') return;
    for (var i = 0; i < select.options.length; i++)
      if (select.options[i].value === value) { select.selectedIndex = i; return; }
    var option = document.createElement('option');
    option.value = value;
    option.textContent = value + ' (no recipe)';
    select.appendChild(option);
    select.value = value;
  }

  function setupFilters(form) {
    var params = new URLSearchParams(window.location.search);
    chooseOption(form.elements.framework, params.get('framework'));
    chooseOption(form.elements.gpus, params.get('gpus'));
    form.elements.verified.checked = params.get('verified') === '1';
    applyFilters(form);
    form.addEventListener('change', function () { filtersToUrl(form); applyFilters(form); });
    form.addEventListener('submit', function (ev) { ev.preventDefault(); filtersToUrl(form); applyFilters(form); });
  }

  // The index: which recipes the filters keep, then (unless "every recipe") the first kept one of each model × GPU
  // type × workload (rows come in rank order), then an empty-state row per model the filters leave with none.
  var INDEX_KEYS = ['model', 'gpu', 'gpus', 'framework', 'standard', 'all'];

  function applyIndexFilters(form) {
    var f = {};
    INDEX_KEYS.forEach(function (k) {
      var el = form.elements[k];
      f[k] = el.type === 'checkbox' ? el.checked : el.value;
    });
    var seen = {}, shown = 0, total = 0, perModel = {};
    // An interval's ends from the row (an empty upper end is unbounded); two overlap as measure::intervals_overlap.
    var low = function (tr) { return Number(tr.getAttribute('data-low')); };
    var high = function (tr) { var h = tr.getAttribute('data-high'); return h === '' ? Infinity : Number(h); };
    var overlap = function (a, b) { return low(a) <= high(b) && low(b) <= high(a); };
    Array.prototype.forEach.call(document.querySelectorAll('#index-table tbody tr[data-recipe]'), function (tr) {
      var model = tr.getAttribute('data-model');
      var ok = (!f.model || model === f.model) && (!f.gpu || tr.getAttribute('data-gpu') === f.gpu) &&
               (!f.gpus || tr.getAttribute('data-gpus') === f.gpus) &&
               (!f.framework || tr.getAttribute('data-framework') === f.framework) &&
               (!f.standard || tr.getAttribute('data-standard') === '1');
      var pair = tr.getAttribute('data-pair');
      // Best only: the first row of each pair the filters leave, and after it those within noise of it (marked).
      var near = false;
      if (ok && !f.all) {
        if (!seen[pair]) seen[pair] = tr;
        else if (overlap(tr, seen[pair])) near = true;
        else ok = false;
      }
      // Its ≈ best tag shown, and then not also its ≈ #k (the same overlap, said once).
      var tag = tr.querySelector('.near-best'), above = tr.querySelector('.noise.above');
      if (tag) tag.hidden = !near;
      if (above) above.hidden = near;
      tr.hidden = !ok;
      total += 1;
      if (ok) { shown += 1; perModel[model] = true; }
    });
    var modelRow = false;
    Array.prototype.forEach.call(document.querySelectorAll('#index-table tr[data-empty-model]'), function (tr) {
      var model = tr.getAttribute('data-empty-model');
      tr.hidden = !(f.model === model && !perModel[model]);
      if (!tr.hidden) modelRow = true;
    });
    // Nothing left and no model's own empty state said why (any model, or one the registry does not have).
    var all = document.querySelector('#index-table tr[data-empty-all]');
    if (all) {
      all.hidden = !(shown === 0 && !modelRow);
      var standard = all.querySelector('[data-empty-standard]');
      if (standard) standard.hidden = !f.standard;
    }
    // The models table: the model and GPU type filters pick its rows, verified and predicted alike.
    var models = 0;
    Array.prototype.forEach.call(document.querySelectorAll('#models-table tbody tr[data-model]'), function (tr) {
      tr.hidden = !((!f.model || tr.getAttribute('data-model') === f.model) &&
                    (!f.gpu || tr.getAttribute('data-gpu') === f.gpu));
      if (!tr.hidden) models += 1;
    });
    var noModel = document.querySelector('#models-table tr[data-empty-models]');
    if (noModel) noModel.hidden = models > 0;
    var status = document.getElementById('filter-status');
    if (status) status.textContent = 'showing ' + shown + ' of ' + total + ' recipes';
  }

  function setupIndexFilters(form) {
    var params = new URLSearchParams(window.location.search);
    INDEX_KEYS.forEach(function (k) {
      var el = form.elements[k];
      if (el.type === 'checkbox') el.checked = params.get(k) === '1';
      else chooseOption(el, params.get(k));
    });
    function toUrl() {
      var q = new URLSearchParams(window.location.search);
      INDEX_KEYS.forEach(function (k) {
        var el = form.elements[k];
        q.delete(k);
        if (el.type === 'checkbox' ? el.checked : el.value) q.set(k, el.type === 'checkbox' ? '1' : el.value);
      });
      var query = q.toString();
      history.replaceState(null, '', window.location.pathname + (query ? '?' + query : '') + window.location.hash);
    }
    applyIndexFilters(form);
    form.addEventListener('change', function () { toUrl(); applyIndexFilters(form); });
    form.addEventListener('submit', function (ev) { ev.preventDefault(); toUrl(); applyIndexFilters(form); });
  }

  // A link to a <details> (#recipe-yaml) opens it: on the click itself ('hashchange' comes a task later, and not at
  // all when the hash is already the link's, after the reader folded it again) and on 'hashchange' (back, forward, a
  // link from another page).
  function openDetails(id) {
    var target = id ? document.getElementById(id) : null;
    if (target && target.tagName === 'DETAILS') target.open = true;
  }
  function openTarget() { openDetails(decodeURIComponent(window.location.hash.slice(1))); }

  window.addEventListener('hashchange', openTarget);
  document.addEventListener('click', function (ev) {
    var a = ev.target && ev.target.closest ? ev.target.closest('a[href^="#"]') : null;
    if (a) openDetails(decodeURIComponent(a.getAttribute('href').slice(1)));
  });
  document.addEventListener('DOMContentLoaded', function () {
    openTarget();
    Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), makeSortable);
    var form = document.getElementById('filters');
    if (form) setupFilters(form);
    var index = document.getElementById('index-filters');
    if (index) setupIndexFilters(index);
  });
})();
