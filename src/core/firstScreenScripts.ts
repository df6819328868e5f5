// The inline scripts of the prerendered pages (./firstScreen.ts says what they decide), apart from its rules so
// that no app bundle carries their text: the build writes them into the pages (build/prerender.ts), the server
// allows them by their hashes (server/src/static.ts).
import { LOCALES, ROUTE_LANG_MAP } from './lang.ts';
import { WEB_VIEW_PATH } from './firstScreen.ts';

// The inline scripts. Plain ES5 text, the same bytes in the build and in the server's CSP hashes (static.ts).
// HEAD: sets data-swap on <html> to the screen to show ('' for none) when it is not the page's own (data-page),
// and writes that screen's stylesheets; the page's <style> hides #root meanwhile. BODY: applies the swap.
// On the page the server rendered for a code link (data-page "package"), the code link shows that page, in its
// language unless the rider has chosen another (stored).
export const FIRST_SCREEN_HEAD_SCRIPT =
  '(function(){var d=document.documentElement,l=location,h=l.hash.replace(/^#/,""),s=l.search,' +
  `w=${WEB_VIEW_PATH.toString()},M=${JSON.stringify(ROUTE_LANG_MAP)},L=${JSON.stringify(LOCALES)},k=null,g,t;` +
  'if(!h)h=w.test(l.pathname)?l.pathname+s:/[?&](qrcode|zhcode|qr|lang)=/.test(s)?"/"+s:"/";' +
  'var i=h.indexOf("?"),p=i<0?h:h.slice(0,i),q=new URLSearchParams(i<0?"":h.slice(i+1)),m;' +
  'if(p.charAt(0)!="/")p="/"+p;if(p.length>1)p=p.replace(/\\/+$/,"");m=w.exec(p);' +
  'if(p=="/")k=q.get("qrcode")||q.get("qr")||q.get("zhcode")?d.getAttribute("data-page")=="package"?"package":"code":"landing";else if(m){k=m[1];' +
  'if(m[2]){try{g=decodeURIComponent(m[2])}catch(e){g=m[2]}g=Object.prototype.hasOwnProperty.call(M,g)?M[g]:null}}' +
  'try{t=localStorage.getItem("lang")}catch(e){}if(L.indexOf(t)<0)t=k=="package"?d.lang:"en-US";' +
  'if((g||t)!=d.lang)k=null;if((k||"")!=d.getAttribute("data-page"))d.setAttribute("data-swap",k||"");' +
  // The screen's own stylesheets (its lazy chunk's, listed by the build in <meta name="powerly-first-css">),
  // written by the parser so that they block the first paint as the page's own do: no unstyled flash, no shift.
  'var c=document.querySelector("meta[name=powerly-first-css]"),j;try{j=k&&c?JSON.parse(c.content)[k]||[]:[]}catch(e){j=[]}' +
  'for(i=0;i<j.length;i++)document.write("<link rel=\\"stylesheet\\" crossorigin href=\\""+j[i]+"\\">")})()';

export const FIRST_SCREEN_BODY_SCRIPT =
  '(function(){var d=document.documentElement,k=d.getAttribute("data-swap"),r=document.getElementById("root"),t;' +
  'if(k===null||!r)return;t=k&&document.querySelector("template[data-first=\\""+k+"\\"]");' +
  'r.textContent="";if(t){r.appendChild(t.content.cloneNode(true));r.setAttribute("data-first",k)}else r.removeAttribute("data-first");' +
  'd.removeAttribute("data-swap")})()';

/** While data-swap is set, #root holds markup of another screen: not painted. */
export const FIRST_SCREEN_STYLE = 'html[data-swap] #root{visibility:hidden}';
