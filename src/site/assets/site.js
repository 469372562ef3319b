// OpenRecipes site: sorting by column header and filters kept in the address. The pages read fully without
// this script (tables come pre-sorted by rank); it only adds these two things. No inline script anywhere: the
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
    Array.prototype.forEach.call(document.querySelectorAll('table.ranked tbody tr'), function (tr) {
      var ok = (!f.framework || tr.getAttribute('data-framework') === f.framework) &&
               (!f.gpus || tr.getAttribute('data-gpus') === f.gpus) &&
               (!f.verified || tr.getAttribute('data-verified') === '1');
      tr.hidden = !ok;
      total += 1;
      if (ok) shown += 1;
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

  function setupFilters(form) {
    var params = new URLSearchParams(window.location.search);
    // A value from the URL that no recipe has is still the filter (it shows none), never silently dropped.
    function choose(select, value) {
      if (value === null || value === '') return;
      for (var i = 0; i < select.options.length; i++)
        if (select.options[i].value === value) { select.selectedIndex = i; return; }
      var option = document.createElement('option');
      option.value = value;
      option.textContent = value + ' (no recipe)';
      select.appendChild(option);
      select.value = value;
    }
    choose(form.elements.framework, params.get('framework'));
    choose(form.elements.gpus, params.get('gpus'));
    form.elements.verified.checked = params.get('verified') === '1';
    applyFilters(form);
    form.addEventListener('change', function () { filtersToUrl(form); applyFilters(form); });
    form.addEventListener('submit', function (ev) { ev.preventDefault(); filtersToUrl(form); applyFilters(form); });
  }

  document.addEventListener('DOMContentLoaded', function () {
    Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), makeSortable);
    var form = document.getElementById('filters');
    if (form) setupFilters(form);
  });
})();
